//! A round's context and its summary note: the code read through the project's
//! platform (bounded, counted, cached across rounds), and the last call that
//! writes the note for the MR from the files' results.

use super::ReviewEngine;
use super::ai_log::AiCallLog;
use super::round::{FileResult, RoundPlan};
use crate::context::{
    self, CodeReader, ContextSettings, PlatformCodeSource, RoundContext, RoundRequest,
};
use crate::model::diff::MergeRequestDiff;
use crate::model::{MergeRequest, Project};
use crate::ports::HostingPlatform;
use crate::review::model_chain::ModelChain;
use crate::review::mr_summary::{self, FileOutcome, MrSummary};
use crate::review::repo_config::RepoConfig;
use std::sync::Arc;

impl ReviewEngine {
    /// The context settings of a round: the server's, the project's budget,
    /// then the repository's `.reviewd.yml` (`context`, `instructions`), and the
    /// round's ignore globs (never sent either).
    pub(super) fn context_settings(
        &self,
        project_budget: Option<u32>,
        file: Option<&RepoConfig>,
        ignore: &[String],
    ) -> ContextSettings {
        let mut settings = self.settings.context.clone();
        if let Some(budget) = project_budget {
            settings.budget_tokens = budget;
        }
        settings.ignore = ignore.to_vec();
        if let Some(file) = file {
            settings.instructions.clone_from(&file.instructions);
            if let Some(context) = &file.context {
                if let Some(budget) = context.budget_tokens {
                    settings.budget_tokens = budget;
                }
                settings.always.clone_from(&context.always);
                settings.never.clone_from(&context.never);
            }
        }
        settings
    }

    /// Gathers the round's context through the project's platform and records
    /// what it cost. A read that fails costs only its part of the context.
    pub(super) async fn gather_context(&self, plan: &RoundPlan) -> RoundContext {
        let reviewed: Vec<String> = plan
            .to_review
            .iter()
            .map(|(_, f)| f.new_path.clone())
            .collect();
        let gathered = self
            .gather(
                (&plan.project, plan.platform.clone()),
                (&plan.mr, &plan.diff),
                &reviewed,
                &plan.context,
            )
            .await;
        if let Err(e) = self
            .reviews
            .record_round_context(plan.round.id, gathered.stats())
            .await
        {
            tracing::warn!(review.id = %plan.review.id, error = %e, "review.context_not_recorded");
        }
        gathered
    }

    /// The context of `reviewed` files of an MR, read through its platform.
    pub(super) async fn gather(
        &self,
        (project, platform): (&Project, Arc<dyn HostingPlatform>),
        (mr, diff): (&MergeRequest, &MergeRequestDiff),
        reviewed: &[String],
        settings: &ContextSettings,
    ) -> RoundContext {
        let source = Arc::new(PlatformCodeSource::new(platform, project.platform_ref()));
        let reader = CodeReader::new(
            source,
            self.code.caches.clone(),
            project.id.to_string(),
            settings,
        );
        let request = RoundRequest {
            mr_title: &mr.title,
            mr_description: mr.description.as_deref(),
            base: &diff.refs.base_sha,
            head: &diff.refs.head_sha,
            files: &diff.files,
            reviewed,
        };
        context::prepare(
            request,
            Some(&reader),
            self.code.analyzer.as_deref(),
            settings,
        )
        .await
    }

    /// The note's summary, written by the model from the files' results; the
    /// files' own summaries when there is nothing to summarise or the call fails.
    pub(super) async fn summarize(
        &self,
        plan: &RoundPlan,
        gathered: &RoundContext,
        ai: &ModelChain,
        results: &[FileResult],
    ) -> MrSummary {
        let outcomes = outcomes(results);
        if !mr_summary::worth_a_call(&outcomes) {
            return mr_summary::fallback(&outcomes);
        }
        let recorder = AiCallLog {
            reviews: self.reviews.as_ref(),
            review_id: Some(plan.review.id),
        };
        match mr_summary::summarize(ai, &self.ask_settings(), gathered, &outcomes, &recorder).await
        {
            Ok(summary) => summary,
            Err(e) => {
                tracing::warn!(review.id = %plan.review.id, error = %e, "review.summary_call_failed");
                mr_summary::fallback(&outcomes)
            }
        }
    }
}

/// The files' results as the summary call reads them.
pub(super) fn outcomes(results: &[FileResult]) -> Vec<FileOutcome> {
    results
        .iter()
        .map(|r| FileOutcome {
            path: r.path.clone(),
            summary: r.summary.clone().unwrap_or_default(),
            comments: r
                .comments
                .iter()
                .map(|c| (c.severity, c.line, c.message.clone()))
                .collect(),
            failed: !r.ok,
        })
        .collect()
}
