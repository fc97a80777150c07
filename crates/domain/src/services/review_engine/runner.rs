//! The runner path: a round prepared for a runner and its result concluded.

use super::guidance::Guidance;
use super::round::{Begun, FileResult, RoundPlan};
use super::{Failure, ReviewEngine};
use crate::context::ContextSettings;
use crate::model::ReviewId;
use crate::model::diff::FileDiff;
use crate::model::review::FileStatus;
use crate::model::review::{AiCallRecord, FileProgress, PlacedComment, RoundRef};
use crate::model::runner::{
    AssignedFile, RunnerAiConfig, RunnerAssignment, RunnerFileResult, RunnerMetrics, RunnerOutcome,
    RunnerResult,
};
use crate::model::{AiSource, AiTarget, MergeRequest, Project, ReviewTask};
use crate::ports::ActiveRule;
use crate::review::diff_lines::DiffLines;
use crate::review::mr_summary;
use crate::review::output::{self, ProposedComment};
use crate::review::suggestion::Suggestion;
use crate::review::{file_review, fingerprint::fingerprint};
use crate::services::ServiceError;
use uuid::Uuid;

/// What a runner is given for a task.
pub(crate) enum Assigned {
    AlreadyReviewed(ReviewId),
    /// Nothing to review (a draft the repository's file skips).
    NotReviewed,
    Round(Box<RunnerRound>),
}

/// A round prepared for a runner, with what its payload is built from.
pub(crate) struct RunnerRound {
    pub(crate) assignment: RunnerAssignment,
    pub(crate) project: Project,
    pub(crate) mr: MergeRequest,
    pub(crate) system_prompt: String,
    pub(crate) rules: Vec<ActiveRule>,
    /// The project's AI configuration, as the runner calls it.
    pub(crate) ai: RunnerAiConfig,
    /// Which stored AI configuration that is (none: the built-in one), so a round
    /// prepared ahead resolves it again, key and all, when it is claimed.
    pub(crate) ai_config_id: Option<Uuid>,
}

impl ReviewEngine {
    /// Begins a round for a runner: the same preparation as the server's own run,
    /// stopped before the model is asked. The runner gets the files, the frame of the
    /// prompt and the rules; its answers come back through `conclude_runner`.
    pub(crate) async fn assign(&self, task: &ReviewTask) -> Result<Assigned, Failure> {
        let (plan, ai) = match self.begin_round(task).await? {
            Begun::AlreadyReviewed(review_id) => return Ok(Assigned::AlreadyReviewed(review_id)),
            Begun::NotReviewed => return Ok(Assigned::NotReviewed),
            Begun::Round(plan, ai) => (plan, ai),
        };
        let files = plan
            .to_review
            .iter()
            .map(|(file_id, f)| AssignedFile {
                file_id: *file_id,
                file_path: f.new_path.clone(),
                old_path: f.old_path.clone(),
                change_type: f.change_type,
            })
            .collect();
        Ok(Assigned::Round(Box::new(RunnerRound {
            assignment: RunnerAssignment {
                review_id: plan.review.id,
                round_id: plan.round.id,
                round_number: plan.number,
                base_sha: plan.diff.refs.base_sha.clone(),
                head_sha: plan.head.clone(),
                files,
                applied_rule_ids: plan.applied.clone(),
                ai_model: Some(ai.model.clone()),
                min_severity: plan.min_severity,
                context: Some(plan.context.clone()),
                gate: plan.file_gate.clone(),
                tools: plan.file_tools.clone(),
            },
            project: plan.project.clone(),
            mr: plan.mr.clone(),
            system_prompt: plan.guidance.system.clone(),
            rules: plan.guidance.rules.clone(),
            ai: self.runner_ai(&ai),
            ai_config_id: match ai.source {
                AiSource::Stored { id, .. } => Some(id),
                AiSource::Builtin | AiSource::Trial => None,
            },
        })))
    }

    /// The AI configuration a round prepared ahead with `ai_config_id` is sent to,
    /// as a runner calls it: resolved when the round is claimed, so its key is never
    /// stored with the task.
    pub(crate) async fn runner_ai_for(
        &self,
        ai_config_id: Option<Uuid>,
    ) -> Result<RunnerAiConfig, Failure> {
        let target = self.ai.target(ai_config_id).await?;
        Ok(self.runner_ai(&target))
    }

    /// What a runner needs to call `target` as this server would.
    fn runner_ai(&self, target: &AiTarget) -> RunnerAiConfig {
        // The built-in configuration's limits are the server's own settings, which
        // a runner has its own of (`RUNNER_FILE_CONCURRENCY`, its HTTP policy).
        let stored = matches!(target.source, AiSource::Stored { .. });
        RunnerAiConfig {
            provider: target.name.clone(),
            endpoint: target.endpoint.clone(),
            api_key: target.api_key.as_ref().map(|k| k.expose().to_owned()),
            model: target.model.clone(),
            max_tokens: self.settings.max_tokens,
            temperature: self.settings.temperature,
            max_diff_chars: self.settings.max_diff_chars,
            timeout_secs: target.timeout.filter(|_| stored).map(|t| t.as_secs()),
            max_concurrency: stored.then_some(target.max_concurrency),
        }
    }

    /// Concludes a runner's round with its answers: comments placed on the diff as
    /// the platform shows it now (never on a line outside it), deduplicated, posted;
    /// the summary, the rating and the round finished, as for the server's own run.
    pub(crate) async fn conclude_runner(
        &self,
        task: &ReviewTask,
        assignment: &RunnerAssignment,
        result: &RunnerResult,
    ) -> Result<ReviewId, Failure> {
        let (project, platform) = self.projects.with_platform(task.project_id).await?;
        let target = project.platform_ref();
        let mr = platform.get_merge_request(&target, task.mr_iid).await?;
        let diff = platform.merge_request_diff(&target, task.mr_iid).await?;
        let review = self.reviews.get(assignment.review_id).await?;
        let round = RoundRef {
            id: assignment.round_id,
            number: assignment.round_number,
        };
        if diff.refs.head_sha != assignment.head_sha {
            let message = format!(
                "the merge request moved from {} to {} while the runner reviewed it",
                assignment.head_sha, diff.refs.head_sha
            );
            self.finish_failed(&review, round, &assignment.head_sha, &message)
                .await?;
            return Err(Failure::permanent(message));
        }
        let mut results = Vec::with_capacity(assignment.files.len());
        for assigned in &assignment.files {
            let answer = result
                .files
                .iter()
                .find(|f| f.file_path == assigned.file_path);
            let file = diff.files.iter().find(|f| f.new_path == assigned.file_path);
            results.push(self.runner_file(assigned, file, answer).await);
        }
        if let Some(stats) = &result.context
            && let Err(e) = self.reviews.record_round_context(round.id, stats).await
        {
            tracing::warn!(review.id = %review.id, error = %e, "review.context_not_recorded");
        }
        let cost_usd = self.runner_cost(&project, &result.metrics).await;
        if let Err(e) = self
            .reviews
            .log_ai_call(AiCallRecord {
                review_id: Some(review.id),
                file_path: None,
                provider: format!("runner:{}", result.runner_id),
                // Runners report no model: the one they were told to use.
                model: assignment
                    .ai_model
                    .clone()
                    .unwrap_or_else(|| self.ai.builtin().model.clone()),
                success: result.status == RunnerOutcome::Success,
                duration_ms: result.metrics.review_ms,
                prompt_tokens: tokens(result.metrics.prompt_tokens),
                completion_tokens: tokens(result.metrics.completion_tokens),
                total_tokens: tokens(result.metrics.tokens_used),
                cached_tokens: tokens(result.metrics.cached_tokens),
                cost_usd,
                error_message: result.error.clone(),
            })
            .await
        {
            tracing::warn!(error = %e, "review.ai_log_failed");
        }
        let project_gate = self.projects.resolved_config(project.id).await?.gate;
        let plan = RoundPlan {
            project,
            platform,
            mr,
            diff,
            review,
            round,
            number: assignment.round_number,
            head: assignment.head_sha.clone(),
            guidance: Guidance {
                system: String::new(),
                rules: Vec::new(),
            },
            to_review: Vec::new(),
            applied: assignment.applied_rule_ids.clone(),
            min_severity: assignment.min_severity,
            context: ContextSettings::default(),
            gate: assignment
                .gate
                .as_ref()
                .map_or(project_gate, |g| g.over(project_gate)),
            file_gate: assignment.gate.clone(),
            file_tools: assignment.tools.clone(),
            tools: crate::review::tools::RoundTools::default(),
        };
        // The runner wrote the note's summary with its model; an older runner
        // did not, and its files' summaries stand in.
        let paths: Vec<&str> = results.iter().map(|r| r.path.as_str()).collect();
        let summary = match result.summary.clone() {
            Some(written) => mr_summary::cleaned(written, &paths),
            None => mr_summary::fallback(&super::context::outcomes(&results)),
        };
        self.conclude(task, &plan, results, &summary).await
    }

    /// What a runner's calls cost, priced here with the project's AI configuration
    /// (a runner's own figure would be trusted no more than its comments). Unknown
    /// without the prompt/completion split or the configuration's prices.
    async fn runner_cost(&self, project: &Project, metrics: &RunnerMetrics) -> Option<f64> {
        let (prompt, completion) = (metrics.prompt_tokens?, metrics.completion_tokens?);
        let config = self.projects.resolved_config(project.id).await.ok()?;
        let target = self.ai.target(config.ai_config_id).await.ok()?;
        target.prices.cost_usd(
            u32::try_from(prompt).unwrap_or(u32::MAX),
            u32::try_from(completion).unwrap_or(u32::MAX),
        )
    }

    /// One file of a runner's answer, placed and recorded like the server's own.
    pub(super) async fn runner_file(
        &self,
        assigned: &AssignedFile,
        file: Option<&FileDiff>,
        answer: Option<&RunnerFileResult>,
    ) -> FileResult {
        let lines = DiffLines::parse(file.and_then(|f| f.diff.as_deref()).unwrap_or(""));
        let error = match (file, answer) {
            (None, _) => Some("the file is no longer in the merge request's diff".to_owned()),
            (_, None) => Some("the runner returned no result for this file".to_owned()),
            (_, Some(a)) if a.status == RunnerOutcome::Failed => Some(
                a.error
                    .clone()
                    .unwrap_or_else(|| "the runner could not review this file".to_owned()),
            ),
            _ => None,
        };
        let mut comments = Vec::new();
        if let (None, Some(answer)) = (&error, answer) {
            for c in &answer.comments {
                let Ok(wanted) = u32::try_from(c.line) else {
                    continue;
                };
                // A runner is trusted no more than a model: its suggestion is checked
                // and fitted to the diff as the platform shows it now.
                let suggestion = c.suggestion.as_ref().and_then(|s| {
                    let (start, end) = (i64::from(s.start_line), i64::from(s.end_line));
                    Suggestion::checked(wanted, start, end, &s.code)
                        .inspect_err(|reason| {
                            tracing::info!(file = %assigned.file_path, line = wanted, reason = %reason, "review.suggestion_dropped");
                        })
                        .ok()
                });
                let proposed = ProposedComment {
                    line: wanted,
                    severity: c.severity,
                    message: output::defuse(&c.message),
                    suggestion,
                };
                let Some(placed) = file_review::place(&lines, &assigned.file_path, proposed) else {
                    continue;
                };
                comments.push(PlacedComment {
                    file_id: assigned.file_id,
                    file_path: assigned.file_path.clone(),
                    old_path: assigned.old_path.clone(),
                    line: placed.line,
                    severity: placed.severity,
                    fingerprint: fingerprint(&assigned.file_path, &placed.message),
                    message: placed.message,
                    suggestion: placed.suggestion,
                });
            }
        }
        let ok = error.is_none();
        let summary = answer
            .and_then(|a| a.summary.clone())
            .filter(|s| !s.is_empty());
        let progress = FileProgress {
            status: if ok {
                FileStatus::Completed
            } else {
                FileStatus::Failed
            },
            summary: summary.clone(),
            comment_count: i32::try_from(comments.len()).unwrap_or(i32::MAX),
            prompt_summary: Some(format!(
                "{} line(s) added, reviewed by a runner",
                lines.added_count()
            )),
            error_message: error,
            context: answer.and_then(|a| a.context.clone()),
        };
        if let Err(e) = self.reviews.update_file(assigned.file_id, progress).await {
            tracing::warn!(error = %e, "review.file_progress_failed");
        }
        FileResult {
            path: assigned.file_path.clone(),
            comments,
            summary,
            added_lines: lines.added_count(),
            ai_unavailable: false,
            ok,
        }
    }

    /// Finishes a runner's round as failed (its top-level failure).
    pub(crate) async fn fail_runner_round(
        &self,
        assignment: &RunnerAssignment,
        message: &str,
    ) -> Result<(), ServiceError> {
        let review = self.reviews.get(assignment.review_id).await?;
        let round = RoundRef {
            id: assignment.round_id,
            number: assignment.round_number,
        };
        self.finish_failed(&review, round, &assignment.head_sha, message)
            .await
            .map_err(|f| ServiceError::Internal(f.message))
    }
}

/// A runner's token count as the AI call log keeps it.
fn tokens(count: Option<u64>) -> u32 {
    u32::try_from(count.unwrap_or(0)).unwrap_or(u32::MAX)
}
