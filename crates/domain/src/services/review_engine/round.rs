//! Planning a round: the review record and round, which files go to the model, and
//! reviewing each file.

use super::ai_log::AiCallLog;
use super::guidance::Guidance;
use super::repo_file;
use super::{Failure, ReviewEngine};
use crate::context::secrets::is_secret_file;
use crate::context::{ContextSettings, RoundContext};
use crate::model::diff::{ChangeType, FileDiff, MergeRequestDiff};
use crate::model::gate::GateState;
use crate::model::review::FileStatus;
use crate::model::review::{
    FileProgress, NewReview, NewReviewFile, PlacedComment, Review, ReviewStatus, RoundRef,
};
use crate::model::{AiTarget, MergeRequest, Project, ReviewTask};
use crate::model::{ReviewFileId, ReviewId};
use crate::ports::{HostingPlatform, PlatformError, ProjectRef};
use crate::review::file_review::{AskSettings, FileContext, FileReview};
use crate::review::gate::{GatePolicy, RepoGate};
use crate::review::globs::Patterns;
use crate::review::model_chain::ModelChain;
use crate::review::tools::RoundTools;
use crate::review::tools::settings::RepoTools;
use crate::review::{fingerprint::fingerprint, rules};
use futures_util::StreamExt;
use std::collections::HashSet;
use std::sync::Arc;

/// The result of one file.
pub(super) struct FileResult {
    pub(super) path: String,
    pub(super) comments: Vec<PlacedComment>,
    pub(super) summary: Option<String>,
    pub(super) added_lines: usize,
    pub(super) ai_unavailable: bool,
    pub(super) ok: bool,
}

/// A round in progress: what the platform and the store said when it began.
pub(super) struct RoundPlan {
    pub(super) project: Project,
    pub(super) platform: Arc<dyn HostingPlatform>,
    pub(super) mr: MergeRequest,
    pub(super) diff: MergeRequestDiff,
    pub(super) review: Review,
    pub(super) round: RoundRef,
    pub(super) number: i32,
    pub(super) head: String,
    pub(super) guidance: Guidance,
    /// The files sent to the model, with their review-file ids.
    pub(super) to_review: Vec<(ReviewFileId, FileDiff)>,
    pub(super) applied: Vec<String>,
    /// `.reviewd.yml`'s `minSeverity`: lower comments are not posted.
    pub(super) min_severity: Option<crate::model::grade::Severity>,
    /// What context the round reads.
    pub(super) context: ContextSettings,
    /// The merge gate's policy: the project's, with `.reviewd.yml`'s over it.
    pub(super) gate: GatePolicy,
    /// `.reviewd.yml`'s `gate:` as written (kept with a runner's assignment).
    pub(super) file_gate: Option<RepoGate>,
    /// `.reviewd.yml`'s `tools:` (sent to a runner, which runs them).
    pub(super) file_tools: Option<RepoTools>,
    /// Findings already known for the head (SARIF uploaded from CI), and which
    /// are posted.
    pub(super) tools: RoundTools,
}

pub(super) enum Begun {
    /// An automatic task for a head already reviewed in full.
    AlreadyReviewed(ReviewId),
    /// Not to be reviewed at all (a draft, and the repository's `.reviewd.yml` says
    /// `skipDrafts`): the task completes with no review and nothing posted.
    NotReviewed,
    /// A round to review, and the AI configuration it is sent to.
    Round(Box<RoundPlan>, AiTarget),
}

impl ReviewEngine {
    /// Everything before the model is asked: the MR and its diff, the review and a
    /// new round, the files to review (the others recorded as skipped), the guidance.
    pub(super) async fn begin_round(&self, task: &ReviewTask) -> Result<Begun, Failure> {
        let (project, platform) = self.projects.with_platform(task.project_id).await?;
        let config = self.projects.resolved_config(project.id).await?;
        // The contract's "check AI config" step: the project's, else the default.
        let ai = self.ai.target(config.ai_config_id).await?;
        let target = project.platform_ref();
        let mr = platform.get_merge_request(&target, task.mr_iid).await?;
        let diff = platform.merge_request_diff(&target, task.mr_iid).await?;
        let head = diff.refs.head_sha.clone();

        let file = self
            .repo_config(platform.as_ref(), &project, task, &head)
            .await?;
        let file_gate = file.as_ref().and_then(|f| f.gate.clone());
        let file_tools = file.as_ref().and_then(|f| f.tools.clone());
        let gate = file_gate
            .as_ref()
            .map_or(config.gate, |g| g.over(config.gate));
        let existing = self.reviews.find_for_mr(project.id, task.mr_iid).await?;
        if let Some(review) = &existing
            && review.head_commit_sha == head
            && review.status == ReviewStatus::Completed
            // A person asking again (after changing rules, say) gets a fresh round.
            && task.triggered_by == crate::model::TriggeredBy::Auto
        {
            tracing::info!(review.id = %review.id, "review.head_already_reviewed");
            if task.send_to_platform && gate.enabled {
                self.repost_verdict((platform.as_ref(), &project), review, gate)
                    .await;
            }
            return Ok(Begun::AlreadyReviewed(review.id));
        }
        if mr.draft && file.as_ref().is_some_and(|f| f.skip_drafts) {
            tracing::info!(task.id = %task.id, mr.iid = task.mr_iid, head, reason = "draft, and .reviewd.yml sets skipDrafts", "review.not_reviewed");
            if task.send_to_platform && gate.enabled {
                // Not green: nothing was reviewed. The next push after the draft is
                // marked ready (or a manual review) brings the verdict.
                let text = "a draft: reviewed once it is marked ready (.reviewd.yml skipDrafts)";
                self.post_gate(
                    (platform.as_ref(), &project),
                    &head,
                    (GateState::Pending, text),
                    None,
                )
                .await;
            }
            return Ok(Begun::NotReviewed);
        }
        let review = match existing {
            Some(r) => r,
            None => {
                self.reviews
                    .create(self.new_review(&project, &mr, &diff, task, &ai))
                    .await?
            }
        };
        if task.review_id != Some(review.id) {
            self.tasks.link_review(task.id, review.id).await?;
        }
        // Rounds count from the last completed one: a failed or interrupted round is
        // redone under its own number, and a completed round is never replaced.
        // Differential only against a head that was fully reviewed.
        let last = self.reviews.last_completed_round(review.id).await?;
        let number = last.as_ref().map_or(1, |(n, _)| n + 1);
        let previous_head = last.map(|(_, h)| h).filter(|h| *h != head);
        let compared = match &previous_head {
            Some(prev) => match platform.compare(&target, prev, &head).await {
                Ok(files) => {
                    self.note_implemented(
                        platform.as_ref(),
                        &target,
                        review.id,
                        &head,
                        (prev, &files),
                    )
                    .await;
                    Some(
                        files
                            .into_iter()
                            .map(|f| f.new_path)
                            .collect::<HashSet<_>>(),
                    )
                }
                // A force-push can remove the old head: review everything again.
                Err(PlatformError::NotFound(_)) => None,
                Err(e) => return Err(e.into()),
            },
            None => None,
        };
        // `review full`: every file again, though what changed was still compared
        // (the comments it implemented are marked so).
        let changed = compared.filter(|_| !task.full_review);
        let round = self
            .reviews
            .start_round(
                review.id,
                number,
                changed.is_some(),
                previous_head.as_deref(),
                &head,
            )
            .await?;
        let mut guidance = self
            .guidance(task.template_id.or(project.template_id), project.id)
            .await?;
        let file_template = self
            .file_template(platform.as_ref(), &project, task, &head, file.as_ref())
            .await?;
        repo_file::apply_to_guidance(&mut guidance, file.as_ref(), file_template);
        let (ignore, ignored_by) =
            repo_file::ignore_patterns(file.as_ref(), &config.file_ignore_patterns);
        let context = self.context_settings(config.context_budget_tokens, file.as_ref(), ignore);
        let ignore = Patterns::new(ignore).map_err(|e| Failure::permanent(e.to_string()))?;

        let mut to_review = Vec::new();
        for file in &diff.files {
            let skip = if ignore.matches(&file.new_path) {
                Some(ignored_by)
            } else if is_secret_file(&file.new_path) {
                Some("a secret file (keys, credentials): never sent to a model")
            } else if file.change_type == ChangeType::Deleted {
                Some("deleted")
            } else if file.diff.is_none() {
                Some("no text diff (binary or too large)")
            } else if changed
                .as_ref()
                .is_some_and(|c| !c.contains(&file.new_path))
            {
                Some("unchanged since the previous round")
            } else {
                None
            };
            let status = if skip.is_some() {
                FileStatus::Skipped
            } else {
                FileStatus::Pending
            };
            let file_id = self
                .reviews
                .add_file(
                    review.id,
                    round,
                    NewReviewFile {
                        file_path: file.new_path.clone(),
                        old_path: file.old_path.clone(),
                        change_type: file.change_type,
                        status,
                    },
                )
                .await?;
            match skip {
                Some(reason) => {
                    let progress = FileProgress {
                        status: FileStatus::Skipped,
                        summary: None,
                        comment_count: 0,
                        prompt_summary: Some(reason.into()),
                        error_message: None,
                        context: None,
                    };
                    self.reviews.update_file(file_id, progress).await?;
                }
                None => to_review.push((file_id, file.clone())),
            }
        }

        let mut applied: Vec<String> = to_review
            .iter()
            .flat_map(|(_, f)| rules::for_file(&guidance.rules, &f.new_path))
            // The file's rules are not stored ones: no id to record.
            .filter(|r| !r.id.is_nil())
            .map(|r| r.id.to_string())
            .collect();
        applied.sort();
        applied.dedup();
        let (project_id, head_for_tools) = (project.id, head.clone());
        let plan = Box::new(RoundPlan {
            project,
            platform,
            mr,
            diff,
            review,
            round,
            number,
            head,
            guidance,
            to_review,
            applied,
            min_severity: file.and_then(|f| f.min_severity),
            context,
            gate,
            file_gate,
            tools: RoundTools {
                found: self.uploaded_findings(&project_id, &head_for_tools).await,
                post: file_tools.as_ref().map(|t| t.post).unwrap_or_default(),
            },
            file_tools,
        });
        if task.send_to_platform {
            self.gate_round_begun(&plan).await;
        }
        Ok(Begun::Round(plan, ai))
    }

    /// Earlier rounds' comments whose lines the code since changed are
    /// implemented. A failure costs only those records: the review goes on.
    async fn note_implemented(
        &self,
        platform: &dyn HostingPlatform,
        target: &ProjectRef,
        review_id: ReviewId,
        head: &str,
        previous: (&str, &[FileDiff]),
    ) {
        let Some(feedback) = &self.feedback else {
            return;
        };
        if let Err(e) = feedback
            .mark_implemented(platform, target, review_id, head, previous)
            .await
        {
            tracing::warn!(review.id = %review_id, error = %e, "feedback.implemented_not_recorded");
        }
    }

    /// The files of a round through the model, a few at once.
    pub(super) async fn review_files(
        &self,
        plan: &RoundPlan,
        gathered: &RoundContext,
        ai: &ModelChain,
    ) -> Vec<FileResult> {
        let (review_id, guidance_ref, tools) = (plan.review.id, &plan.guidance, &plan.tools);
        futures_util::stream::iter(plan.to_review.iter().cloned())
            .map(move |(file_id, file)| async move {
                let reading = (gathered, guidance_ref, tools);
                self.review_file(review_id, file_id, &file, reading, ai)
                    .await
            })
            .buffer_unordered(self.settings.file_concurrency.max(1))
            .collect()
            .await
    }

    pub(super) fn new_review(
        &self,
        project: &Project,
        mr: &MergeRequest,
        diff: &MergeRequestDiff,
        task: &ReviewTask,
        ai: &AiTarget,
    ) -> NewReview {
        NewReview {
            project_id: project.id,
            project_name: project.name.clone(),
            mr_iid: task.mr_iid,
            mr_title: mr.title.clone(),
            mr_url: mr.web_url.clone(),
            source_branch: mr.source_branch.clone(),
            target_branch: mr.target_branch.clone(),
            author_username: mr.author_username.clone(),
            ai_provider: ai.name.clone(),
            ai_model: ai.model.clone(),
            triggered_by: task.triggered_by,
            base_commit_sha: Some(diff.refs.base_sha.clone()),
            head_commit_sha: diff.refs.head_sha.clone(),
            start_commit_sha: Some(diff.refs.start_sha.clone()),
        }
    }

    /// One file through the shared file review; its progress and calls recorded.
    pub(super) async fn review_file(
        &self,
        review_id: ReviewId,
        file_id: ReviewFileId,
        file: &FileDiff,
        (gathered, guidance, tools): (&RoundContext, &Guidance, &RoundTools),
        ai: &ModelChain,
    ) -> FileResult {
        let file_rules = rules::for_file(&guidance.rules, &file.new_path);
        let diff = file.diff.as_deref().unwrap_or_default();
        let review = FileReview::new(diff, self.settings.max_diff_chars);
        // The secrets scan needs nothing but the diff: it runs on every file.
        let found = tools.with_secrets_of(&file.new_path, diff);
        let processing = FileProgress {
            status: FileStatus::Processing,
            summary: None,
            comment_count: 0,
            prompt_summary: Some(format!(
                "{} line(s) added, {} prompt(s)",
                review.added_lines(),
                review.prompts()
            )),
            error_message: None,
            context: None,
        };
        if let Err(e) = self.reviews.update_file(file_id, processing.clone()).await {
            tracing::warn!(error = %e, "review.file_progress_failed");
        }
        let context = FileContext {
            round: gathered,
            system: &guidance.system,
            rules: &file_rules,
            path: &file.new_path,
            change_type: file.change_type,
            tools: &found,
            post: tools.post,
        };
        let recorder = AiCallLog {
            reviews: self.reviews.as_ref(),
            review_id: Some(review_id),
        };
        let verdict = review
            .run(ai, &self.ask_settings(), context, &recorder)
            .await;
        let ai_unavailable = verdict.ai_unavailable();
        let comments: Vec<PlacedComment> = verdict
            .comments
            .into_iter()
            .map(|c| PlacedComment {
                file_id,
                file_path: file.new_path.clone(),
                old_path: file.old_path.clone(),
                line: c.line,
                severity: c.severity,
                fingerprint: fingerprint(&file.new_path, &c.message),
                message: c.message,
                suggestion: c.suggestion,
            })
            .collect();
        let error = verdict.error.map(|e| e.to_string());
        let ok = error.is_none();
        let progress = FileProgress {
            status: if ok {
                FileStatus::Completed
            } else {
                FileStatus::Failed
            },
            summary: Some(verdict.summary.clone()).filter(|s| !s.is_empty()),
            comment_count: i32::try_from(comments.len()).unwrap_or(i32::MAX),
            prompt_summary: processing.prompt_summary,
            error_message: error,
            context: Some(verdict.context),
        };
        if let Err(e) = self.reviews.update_file(file_id, progress).await {
            tracing::warn!(error = %e, "review.file_progress_failed");
        }
        FileResult {
            path: file.new_path.clone(),
            comments,
            summary: Some(verdict.summary),
            added_lines: review.added_lines(),
            ai_unavailable,
            ok,
        }
    }

    pub(super) fn ask_settings(&self) -> AskSettings {
        AskSettings {
            max_tokens: self.settings.max_tokens,
            temperature: self.settings.temperature,
            max_diff_chars: self.settings.max_diff_chars,
            answer_attempts: self.settings.answer_attempts,
        }
    }
}
