//! The review engine: runs one queued task from the MR's diff to comments posted on
//! the platform and a finished review record.

use super::ServiceError;
use super::projects::ProjectService;
use crate::ErrorCode;
use crate::model::diff::{ChangeType, FileDiff, InlineComment, MergeRequestDiff};
use crate::model::review::{
    AiCallRecord, FileProgress, NewReview, NewReviewFile, PlacedComment, Review, ReviewOutcome,
    ReviewStatus, RoundRef,
};
use crate::model::runner::{
    AssignedFile, RunnerAssignment, RunnerFileResult, RunnerOutcome, RunnerResult,
};
use crate::model::{MergeRequest, Project, ReviewTask};
use crate::ports::{
    ActiveRule, AiProvider, AttemptStart, CatalogRepository, HostingPlatform, PlatformError,
    ReviewRepository, TaskRepository,
};
use crate::review::diff_lines::{DiffLines, Placement};
use crate::review::file_review::{AskSettings, CallRecorder, FileContext, FileReview, ModelCall};
use crate::review::globs::Patterns;
use crate::review::rating::{rating, score};
use crate::review::{fingerprint::fingerprint, output, prompt, rules};
use futures_util::StreamExt;
use std::collections::HashSet;
use std::sync::Arc;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct EngineSettings {
    /// Files reviewed at once within one review.
    pub file_concurrency: usize,
    /// Largest diff piece sent in one prompt, in characters (about 4 per token).
    pub max_diff_chars: usize,
    pub model: String,
    pub max_tokens: Option<u32>,
    pub temperature: Option<f64>,
    /// Attempts per prompt when the answer is unusable (off-schema JSON).
    pub answer_attempts: u32,
    /// How long an attempt is presumed alive: another task of the same MR waits
    /// that long at most (the queue's reclaim idle time).
    pub attempt_lease: std::time::Duration,
}

impl Default for EngineSettings {
    fn default() -> Self {
        Self {
            file_concurrency: 3,
            max_diff_chars: 24_000,
            model: "gpt-4o-mini".into(),
            max_tokens: Some(2_000),
            temperature: Some(0.1),
            answer_attempts: 2,
            attempt_lease: std::time::Duration::from_secs(31 * 60),
        }
    }
}

/// What became of a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunOutcome {
    Completed {
        review_id: Uuid,
    },
    /// The task is no longer runnable (superseded, done, out of attempts): drop it.
    Skipped,
    /// Another attempt is reviewing the same MR: queue this one again later.
    Busy,
    /// A transient failure; the task is queued again for another attempt.
    Retry {
        error: String,
    },
    Failed {
        error: String,
    },
}

/// A failure of one attempt, and whether a later attempt may succeed.
pub(crate) struct Failure {
    pub(crate) transient: bool,
    pub(crate) message: String,
}

impl Failure {
    fn permanent(message: impl Into<String>) -> Self {
        Self {
            transient: false,
            message: message.into(),
        }
    }
}

impl From<PlatformError> for Failure {
    fn from(e: PlatformError) -> Self {
        let transient = matches!(
            e,
            PlatformError::Unavailable(_) | PlatformError::RateLimited { .. }
        );
        Self {
            transient,
            message: e.to_string(),
        }
    }
}

impl From<ServiceError> for Failure {
    fn from(e: ServiceError) -> Self {
        match e {
            ServiceError::Platform(p) => p.into(),
            ServiceError::Unavailable(m) => Self {
                transient: true,
                message: m,
            },
            other => Self::permanent(other.to_string()),
        }
    }
}

impl From<crate::ports::RepoError> for Failure {
    fn from(e: crate::ports::RepoError) -> Self {
        ServiceError::from(e).into()
    }
}

/// The result of one file.
struct FileResult {
    comments: Vec<PlacedComment>,
    summary: Option<String>,
    added_lines: usize,
    ai_unavailable: bool,
    ok: bool,
}

pub struct ReviewEngine {
    tasks: Arc<dyn TaskRepository>,
    reviews: Arc<dyn ReviewRepository>,
    projects: Arc<ProjectService>,
    catalog: Arc<dyn CatalogRepository>,
    ai: Arc<dyn AiProvider>,
    settings: EngineSettings,
    observer: Option<Arc<dyn crate::ports::ReviewObserver>>,
}

/// A round in progress: what the platform and the store said when it began.
struct RoundPlan {
    project: Project,
    platform: Arc<dyn HostingPlatform>,
    mr: MergeRequest,
    diff: MergeRequestDiff,
    review: Review,
    round: RoundRef,
    number: i32,
    head: String,
    guidance: Guidance,
    /// The files sent to the model, with their review-file ids.
    to_review: Vec<(Uuid, FileDiff)>,
    applied: Vec<String>,
}

/// What a runner is given for a task.
pub(crate) enum Assigned {
    AlreadyReviewed(Uuid),
    Round(Box<RunnerRound>),
}

/// A round prepared for a runner, with what its payload is built from.
pub(crate) struct RunnerRound {
    pub(crate) assignment: RunnerAssignment,
    pub(crate) project: Project,
    pub(crate) mr: MergeRequest,
    pub(crate) system_prompt: String,
    pub(crate) rules: Vec<ActiveRule>,
    pub(crate) settings: EngineSettings,
    pub(crate) provider: String,
}

enum Begun {
    /// An automatic task for a head already reviewed in full.
    AlreadyReviewed(Uuid),
    Round(Box<RoundPlan>),
}

/// The template and rules a review runs with.
struct Guidance {
    system: String,
    rules: Vec<ActiveRule>,
}

impl ReviewEngine {
    pub fn new(
        tasks: Arc<dyn TaskRepository>,
        reviews: Arc<dyn ReviewRepository>,
        projects: Arc<ProjectService>,
        catalog: Arc<dyn CatalogRepository>,
        ai: Arc<dyn AiProvider>,
        settings: EngineSettings,
    ) -> Self {
        Self {
            tasks,
            reviews,
            projects,
            catalog,
            ai,
            settings,
            observer: None,
        }
    }

    /// Tells `observer` of every review that finishes (notifications).
    #[must_use]
    pub fn observed_by(mut self, observer: Arc<dyn crate::ports::ReviewObserver>) -> Self {
        self.observer = Some(observer);
        self
    }

    fn finished(&self, review_id: Uuid, status: ReviewStatus) {
        if let Some(observer) = &self.observer {
            observer.review_finished(review_id, status);
        }
    }

    /// A task failed for good: its review is closed as failed if a round left it
    /// `pending`, and observers are told (a round failed on an attempt that is
    /// retried is not reported: the retry may still complete it).
    pub(crate) async fn task_failed(&self, task: &ReviewTask, message: &str) {
        match self.reviews.find_for_mr(task.project_id, task.mr_iid).await {
            Ok(Some(review)) if review.status == ReviewStatus::Failed => {
                self.finished(review.id, ReviewStatus::Failed);
            }
            Ok(Some(review)) if review.status == ReviewStatus::Pending => {
                if let Err(e) = self.abandon(task, message).await {
                    tracing::warn!(task.id = %task.id, error = %e, "review.failure_not_recorded");
                }
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(task.id = %task.id, error = %e, "review.failure_not_reported"),
        }
    }

    /// The task's template (else the project's, else the global default) and the
    /// project's rules.
    async fn guidance(
        &self,
        template_id: Option<Uuid>,
        project_id: Uuid,
    ) -> Result<Guidance, crate::ports::RepoError> {
        let template = match self.catalog.template_content(template_id).await? {
            Some(t) => Some(t),
            None if template_id.is_some() => self.catalog.template_content(None).await?,
            None => None,
        };
        Ok(Guidance {
            system: prompt::system_prompt(template.as_ref().map(|(_, content)| content.as_str())),
            rules: self.catalog.active_rules(project_id).await?,
        })
    }

    /// Runs one attempt of a task and records its outcome on the task.
    ///
    /// # Errors
    /// Only store failures while recording the outcome.
    pub async fn run(&self, task_id: Uuid) -> Result<RunOutcome, ServiceError> {
        let task = match self
            .tasks
            .begin_attempt(task_id, self.settings.attempt_lease)
            .await?
        {
            AttemptStart::Started(task) => task,
            AttemptStart::Busy => return Ok(RunOutcome::Busy),
            AttemptStart::NotRunnable => return Ok(RunOutcome::Skipped),
            AttemptStart::GaveUp(task) => {
                let message = task
                    .error_message
                    .clone()
                    .unwrap_or_else(|| "gave up after the maximum number of attempts".into());
                self.abandon(&task, &message).await?;
                return Ok(RunOutcome::Failed { error: message });
            }
        };
        tracing::info!(task.id = %task.id, attempt = task.attempts, mr.iid = task.mr_iid, "review.started");
        match self.review(&task).await {
            Ok(review_id) => {
                self.tasks.complete(task.id, Some(review_id)).await?;
                tracing::info!(task.id = %task.id, review.id = %review_id, "review.completed");
                Ok(RunOutcome::Completed { review_id })
            }
            Err(f) if f.transient && task.attempts < task.max_attempts => {
                self.tasks.requeue(task.id, &f.message).await?;
                tracing::warn!(task.id = %task.id, attempt = task.attempts, error = %f.message, "review.retrying");
                Ok(RunOutcome::Retry { error: f.message })
            }
            Err(f) => {
                self.tasks.fail(task.id, &f.message).await?;
                tracing::error!(task.id = %task.id, error = %f.message, "review.failed");
                self.task_failed(&task, &f.message).await;
                Ok(RunOutcome::Failed { error: f.message })
            }
        }
    }

    /// Fails a task whose attempt ran past the review timeout.
    ///
    /// # Errors
    /// Store failures.
    pub async fn time_out(
        &self,
        task_id: Uuid,
        after: std::time::Duration,
    ) -> Result<(), ServiceError> {
        let message = format!(
            "the review ran longer than its timeout ({} s) and was stopped",
            after.as_secs_f64()
        );
        self.tasks.fail(task_id, &message).await?;
        if let Ok(task) = self.tasks.get(task_id).await {
            self.abandon(&task, &message).await?;
        }
        Ok(())
    }

    /// Closes the review of a task that failed without concluding its round (timed
    /// out, out of attempts, its runner gone): a review left `pending` becomes
    /// `failed` with `message`, and observers are told.
    ///
    /// # Errors
    /// Store failures.
    pub(crate) async fn abandon(
        &self,
        task: &ReviewTask,
        message: &str,
    ) -> Result<(), ServiceError> {
        if let Ok(Some(review)) = self.reviews.find_for_mr(task.project_id, task.mr_iid).await
            && review.status == ReviewStatus::Pending
        {
            // The open round is left as it is (not completed, so it is redone next
            // time); only the review record is closed.
            let round = RoundRef {
                id: Uuid::nil(),
                number: review.round_number,
            };
            let outcome = ReviewOutcome {
                status: ReviewStatus::Failed,
                rating: None,
                score: None,
                summary: None,
                comment_count: review.comment_count,
                reviewed_lines: 0,
                summary_comment_id: review.summary_comment_id.clone(),
                error_message: Some(message.to_owned()),
                applied_rule_ids: Vec::new(),
            };
            self.reviews
                .finish(review.id, round, &review.head_commit_sha, outcome)
                .await?;
            tracing::warn!(review.id = %review.id, task.id = %task.id, error = %message, "review.abandoned");
            self.finished(review.id, ReviewStatus::Failed);
        }
        Ok(())
    }

    /// Re-runs the review of one file at the review's current head, posting only
    /// comments not made before. Returns how many new comments it added.
    ///
    /// # Errors
    /// `NotFound` for an unknown review or file; `BadRequest` when the file is no
    /// longer in the MR's diff or has no text diff; platform failures.
    pub async fn retry_file(&self, review_id: Uuid, file_id: Uuid) -> Result<usize, ServiceError> {
        let review = self
            .reviews
            .get(review_id)
            .await
            .map_err(|e| ServiceError::from_repo(e, "review"))?;
        let (path, _, round) = self
            .reviews
            .file_ref(review_id, file_id)
            .await
            .map_err(|e| ServiceError::from_repo(e, "review file"))?;
        let (project, platform) = self.projects.with_platform(review.project_id).await?;
        let config = self.projects.resolved_config(project.id).await?;
        let mr = platform
            .get_merge_request(&project.platform_ref(), review.mr_iid)
            .await?;
        let diff = platform
            .merge_request_diff(&project.platform_ref(), review.mr_iid)
            .await?;
        let file = diff
            .files
            .iter()
            .find(|f| f.new_path == path && f.diff.is_some())
            .ok_or_else(|| ServiceError::BadRequest {
                code: ErrorCode::FileNotInDiff,
                message: format!("{path} has no text diff in the merge request any more"),
            })?;
        let guidance = self.guidance(project.template_id, project.id).await?;
        let result = self
            .review_file(review_id, file_id, file, &mr, &guidance)
            .await;
        if !result.ok {
            return Err(ServiceError::Unavailable(format!(
                "the retry of {path} failed; see the file's error and the AI logs"
            )));
        }
        let seen = self.reviews.fingerprints(review_id).await?;
        let mut keys = HashSet::new();
        let fresh: Vec<PlacedComment> = result
            .comments
            .into_iter()
            .filter(|c| !seen.contains(&c.fingerprint) && keys.insert(c.fingerprint.clone()))
            .collect();
        let ids = self.reviews.add_comments(review_id, round, &fresh).await?;
        if config.send_to_platform
            && let Err(e) = self
                .post(
                    platform.as_ref(),
                    &project,
                    review.mr_iid,
                    &diff,
                    &fresh,
                    &ids,
                )
                .await
        {
            tracing::warn!(review.id = %review_id, error = %e, "review.retry_post_failed");
        }
        self.reviews
            .add_comment_count(review_id, i32::try_from(fresh.len()).unwrap_or(i32::MAX))
            .await?;
        tracing::info!(review.id = %review_id, file = %path, new_comments = fresh.len(), "review.file_retried");
        Ok(fresh.len())
    }

    async fn review(&self, task: &ReviewTask) -> Result<Uuid, Failure> {
        let plan = match self.begin_round(task).await? {
            Begun::AlreadyReviewed(review_id) => return Ok(review_id),
            Begun::Round(plan) => plan,
        };
        let results = self.review_files(&plan).await;
        self.conclude(task, &plan, results).await
    }

    /// Everything before the model is asked: the MR and its diff, the review and a
    /// new round, the files to review (the others recorded as skipped), the guidance.
    async fn begin_round(&self, task: &ReviewTask) -> Result<Begun, Failure> {
        let (project, platform) = self.projects.with_platform(task.project_id).await?;
        let config = self.projects.resolved_config(project.id).await?;
        let target = project.platform_ref();
        let mr = platform.get_merge_request(&target, task.mr_iid).await?;
        let diff = platform.merge_request_diff(&target, task.mr_iid).await?;
        let head = diff.refs.head_sha.clone();

        let existing = self.reviews.find_for_mr(project.id, task.mr_iid).await?;
        if let Some(review) = &existing
            && review.head_commit_sha == head
            && review.status == ReviewStatus::Completed
            // A person asking again (after changing rules, say) gets a fresh round.
            && task.triggered_by == crate::model::TriggeredBy::Auto
        {
            tracing::info!(review.id = %review.id, "review.head_already_reviewed");
            return Ok(Begun::AlreadyReviewed(review.id));
        }
        let review = match existing {
            Some(r) => r,
            None => {
                self.reviews
                    .create(self.new_review(&project, &mr, &diff, task))
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
        let changed = match &previous_head {
            Some(prev) => match platform.compare(&target, prev, &head).await {
                Ok(files) => Some(
                    files
                        .into_iter()
                        .map(|f| f.new_path)
                        .collect::<HashSet<_>>(),
                ),
                // A force-push can remove the old head: review everything again.
                Err(PlatformError::NotFound(_)) => None,
                Err(e) => return Err(e.into()),
            },
            None => None,
        };
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
        let guidance = self
            .guidance(task.template_id.or(project.template_id), project.id)
            .await?;
        let ignore = Patterns::new(&config.file_ignore_patterns)
            .map_err(|e| Failure::permanent(e.to_string()))?;

        let mut to_review = Vec::new();
        for file in &diff.files {
            let skip = if ignore.matches(&file.new_path) {
                Some("ignored by fileIgnorePatterns")
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
            let status = if skip.is_some() { "skipped" } else { "pending" };
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
                        status: "skipped",
                        summary: None,
                        comment_count: 0,
                        prompt_summary: Some(reason.into()),
                        error_message: None,
                    };
                    self.reviews.update_file(file_id, progress).await?;
                }
                None => to_review.push((file_id, file.clone())),
            }
        }

        let mut applied: Vec<String> = to_review
            .iter()
            .flat_map(|(_, f)| rules::for_file(&guidance.rules, &f.new_path))
            .map(|r| r.id.to_string())
            .collect();
        applied.sort();
        applied.dedup();
        Ok(Begun::Round(Box::new(RoundPlan {
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
        })))
    }

    /// The files of a round through the model, a few at once.
    async fn review_files(&self, plan: &RoundPlan) -> Vec<FileResult> {
        let (review_id, mr_ref, guidance_ref) = (plan.review.id, &plan.mr, &plan.guidance);
        futures_util::stream::iter(plan.to_review.iter().cloned())
            .map(move |(file_id, file)| async move {
                self.review_file(review_id, file_id, &file, mr_ref, guidance_ref)
                    .await
            })
            .buffer_unordered(self.settings.file_concurrency.max(1))
            .collect()
            .await
    }

    /// Everything after the model answered: new comments stored and posted, the
    /// summary comment, the rating, the finished round.
    async fn conclude(
        &self,
        task: &ReviewTask,
        plan: &RoundPlan,
        results: Vec<FileResult>,
    ) -> Result<Uuid, Failure> {
        let RoundPlan {
            project,
            platform,
            diff,
            review,
            round,
            number,
            head,
            applied,
            ..
        } = plan;
        let (round, number) = (*round, *number);
        let reviewed = results.len();
        let failed = results.iter().filter(|r| !r.ok).count();
        if reviewed > 0 && failed == reviewed {
            let transient = results.iter().all(|r| r.ai_unavailable);
            let message = format!("all {reviewed} file(s) failed to review");
            self.finish_failed(review, round, head, &message).await?;
            return Err(Failure { transient, message });
        }

        let seen = self.reviews.fingerprints(review.id).await?;
        let all: Vec<PlacedComment> = results
            .iter()
            .flat_map(|r| r.comments.iter().cloned())
            .collect();
        let mut fresh_keys = HashSet::new();
        let fresh: Vec<PlacedComment> = all
            .iter()
            .filter(|c| !seen.contains(&c.fingerprint) && fresh_keys.insert(c.fingerprint.clone()))
            .cloned()
            .collect();
        let ids = self.reviews.add_comments(review.id, round, &fresh).await?;

        let value = score(all.iter().map(|c| c.severity));
        let grade = rating(value);
        let summaries: Vec<String> = results
            .iter()
            .filter_map(|r| r.summary.clone())
            .filter(|s| !s.is_empty())
            .collect();
        let summary = summaries.join(" ");
        let mut error_message =
            (failed > 0).then(|| format!("{failed} of {reviewed} file(s) could not be reviewed"));
        let mut summary_comment_id = review.summary_comment_id.clone();
        if task.send_to_platform {
            match self
                .post(platform.as_ref(), project, task.mr_iid, diff, &fresh, &ids)
                .await
            {
                Ok(()) => {}
                // The platform is down or throttling: redo the round later rather than
                // finish with comments nobody saw.
                Err(e @ (PlatformError::Unavailable(_) | PlatformError::RateLimited { .. })) => {
                    return Err(e.into());
                }
                Err(e) => {
                    tracing::warn!(review.id = %review.id, error = %e, "review.post_failed");
                    error_message = Some(format!("comments could not be posted: {e}"));
                }
            }
            let body = summary_body(
                number,
                grade,
                value,
                &all,
                fresh.len(),
                &summary,
                reviewed,
                failed,
            );
            summary_comment_id = self
                .upsert_summary(
                    platform.as_ref(),
                    project,
                    task.mr_iid,
                    summary_comment_id,
                    &body,
                )
                .await;
        }
        let outcome = ReviewOutcome {
            status: ReviewStatus::Completed,
            rating: Some(grade),
            score: Some(value),
            summary: Some(summary),
            comment_count: review.comment_count + i32::try_from(fresh.len()).unwrap_or(i32::MAX),
            reviewed_lines: i32::try_from(results.iter().map(|r| r.added_lines).sum::<usize>())
                .unwrap_or(i32::MAX),
            summary_comment_id,
            error_message,
            applied_rule_ids: applied.clone(),
        };
        self.reviews.finish(review.id, round, head, outcome).await?;
        self.finished(review.id, ReviewStatus::Completed);
        Ok(review.id)
    }

    /// Begins a round for a runner: the same preparation as the server's own run,
    /// stopped before the model is asked. The runner gets the files, the frame of the
    /// prompt and the rules; its answers come back through `conclude_runner`.
    pub(crate) async fn assign(&self, task: &ReviewTask) -> Result<Assigned, Failure> {
        let plan = match self.begin_round(task).await? {
            Begun::AlreadyReviewed(review_id) => return Ok(Assigned::AlreadyReviewed(review_id)),
            Begun::Round(plan) => plan,
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
            },
            project: plan.project.clone(),
            mr: plan.mr.clone(),
            system_prompt: plan.guidance.system.clone(),
            rules: plan.guidance.rules.clone(),
            settings: self.settings.clone(),
            provider: self.ai.name().to_owned(),
        })))
    }

    /// Concludes a runner's round with its answers: comments placed on the diff as
    /// the platform shows it now (never on a line outside it), deduplicated, posted;
    /// the summary, the rating and the round finished, as for the server's own run.
    pub(crate) async fn conclude_runner(
        &self,
        task: &ReviewTask,
        assignment: &RunnerAssignment,
        result: &RunnerResult,
    ) -> Result<Uuid, Failure> {
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
        if let Err(e) = self
            .reviews
            .log_ai_call(AiCallRecord {
                review_id: Some(review.id),
                file_path: None,
                provider: format!("runner:{}", result.runner_id),
                model: self.settings.model.clone(),
                success: result.status == RunnerOutcome::Success,
                duration_ms: result.metrics.review_ms,
                prompt_tokens: 0,
                completion_tokens: 0,
                total_tokens: u32::try_from(result.metrics.tokens_used.unwrap_or(0))
                    .unwrap_or(u32::MAX),
                error_message: result.error.clone(),
            })
            .await
        {
            tracing::warn!(error = %e, "review.ai_log_failed");
        }
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
        };
        self.conclude(task, &plan, results).await
    }

    /// One file of a runner's answer, placed and recorded like the server's own.
    async fn runner_file(
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
                let line = match lines.place(wanted) {
                    Placement::Exact(l) | Placement::Nearest(l) => l,
                    Placement::Outside => continue,
                };
                let message = output::defuse(&c.message);
                comments.push(PlacedComment {
                    file_id: assigned.file_id,
                    file_path: assigned.file_path.clone(),
                    old_path: assigned.old_path.clone(),
                    line,
                    severity: c.severity,
                    fingerprint: fingerprint(&assigned.file_path, &message),
                    message,
                });
            }
        }
        let ok = error.is_none();
        let summary = answer
            .and_then(|a| a.summary.clone())
            .filter(|s| !s.is_empty());
        let progress = FileProgress {
            status: if ok { "completed" } else { "failed" },
            summary: summary.clone(),
            comment_count: i32::try_from(comments.len()).unwrap_or(i32::MAX),
            prompt_summary: Some(format!(
                "{} line(s) added, reviewed by a runner",
                lines.added_count()
            )),
            error_message: error,
        };
        if let Err(e) = self.reviews.update_file(assigned.file_id, progress).await {
            tracing::warn!(error = %e, "review.file_progress_failed");
        }
        FileResult {
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

    fn new_review(
        &self,
        project: &Project,
        mr: &MergeRequest,
        diff: &MergeRequestDiff,
        task: &ReviewTask,
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
            ai_provider: self.ai.name().to_owned(),
            ai_model: self.settings.model.clone(),
            triggered_by: task.triggered_by,
            base_commit_sha: Some(diff.refs.base_sha.clone()),
            head_commit_sha: diff.refs.head_sha.clone(),
            start_commit_sha: Some(diff.refs.start_sha.clone()),
        }
    }

    async fn finish_failed(
        &self,
        review: &Review,
        round: RoundRef,
        head: &str,
        message: &str,
    ) -> Result<(), Failure> {
        let outcome = ReviewOutcome {
            status: ReviewStatus::Failed,
            rating: None,
            score: None,
            summary: None,
            comment_count: review.comment_count,
            reviewed_lines: 0,
            summary_comment_id: review.summary_comment_id.clone(),
            error_message: Some(message.to_owned()),
            applied_rule_ids: Vec::new(),
        };
        self.reviews.finish(review.id, round, head, outcome).await?;
        Ok(())
    }

    /// One file through the shared file review; its progress and calls recorded.
    async fn review_file(
        &self,
        review_id: Uuid,
        file_id: Uuid,
        file: &FileDiff,
        mr: &MergeRequest,
        guidance: &Guidance,
    ) -> FileResult {
        let file_rules = rules::for_file(&guidance.rules, &file.new_path);
        let review = FileReview::new(
            file.diff.as_deref().unwrap_or_default(),
            self.settings.max_diff_chars,
        );
        let processing = FileProgress {
            status: "processing",
            summary: None,
            comment_count: 0,
            prompt_summary: Some(format!(
                "{} line(s) added, {} prompt(s)",
                review.added_lines(),
                review.prompts()
            )),
            error_message: None,
        };
        if let Err(e) = self.reviews.update_file(file_id, processing.clone()).await {
            tracing::warn!(error = %e, "review.file_progress_failed");
        }
        let context = FileContext {
            mr_title: &mr.title,
            mr_description: mr.description.as_deref(),
            system: &guidance.system,
            rules: &file_rules,
            path: &file.new_path,
            change_type: file.change_type,
        };
        let recorder = AiCallLog {
            reviews: self.reviews.as_ref(),
            review_id,
            provider: self.ai.name(),
            model: &self.settings.model,
        };
        let verdict = review
            .run(self.ai.as_ref(), &self.ask_settings(), context, &recorder)
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
            })
            .collect();
        let error = verdict.error.map(|e| e.to_string());
        let ok = error.is_none();
        let progress = FileProgress {
            status: if ok { "completed" } else { "failed" },
            summary: Some(verdict.summary.clone()).filter(|s| !s.is_empty()),
            comment_count: i32::try_from(comments.len()).unwrap_or(i32::MAX),
            prompt_summary: processing.prompt_summary,
            error_message: error,
        };
        if let Err(e) = self.reviews.update_file(file_id, progress).await {
            tracing::warn!(error = %e, "review.file_progress_failed");
        }
        FileResult {
            comments,
            summary: Some(verdict.summary),
            added_lines: review.added_lines(),
            ai_unavailable,
            ok,
        }
    }

    fn ask_settings(&self) -> AskSettings {
        AskSettings {
            model: self.settings.model.clone(),
            max_tokens: self.settings.max_tokens,
            temperature: self.settings.temperature,
            max_diff_chars: self.settings.max_diff_chars,
            answer_attempts: self.settings.answer_attempts,
        }
    }

    async fn post(
        &self,
        platform: &dyn HostingPlatform,
        project: &Project,
        iid: i64,
        diff: &MergeRequestDiff,
        comments: &[PlacedComment],
        ids: &[Uuid],
    ) -> Result<(), PlatformError> {
        if comments.is_empty() {
            return Ok(());
        }
        let inline: Vec<InlineComment> = comments
            .iter()
            .map(|c| InlineComment {
                file_path: c.file_path.clone(),
                old_path: c.old_path.clone(),
                line: c.line,
                body: format!("**{}**: {}", c.severity.as_str(), c.message),
            })
            .collect();
        let posted = platform
            .post_inline_comments(&project.platform_ref(), iid, &diff.refs, &inline)
            .await?;
        for (id, discussion) in ids.iter().zip(posted.iter()) {
            if let Err(e) = self.reviews.mark_posted(*id, discussion.as_deref()).await {
                tracing::warn!(error = %e, "review.mark_posted_failed");
            }
        }
        Ok(())
    }

    /// Edits the summary comment in place, or posts it the first time. A failure
    /// costs only the summary comment, never the review.
    async fn upsert_summary(
        &self,
        platform: &dyn HostingPlatform,
        project: &Project,
        iid: i64,
        existing: Option<String>,
        body: &str,
    ) -> Option<String> {
        let target = project.platform_ref();
        if let Some(id) = &existing {
            match platform.edit_comment(&target, iid, id, body).await {
                Ok(()) => return existing,
                Err(PlatformError::NotFound(_)) => {} // deleted by someone: post a new one
                Err(e) => {
                    tracing::warn!(error = %e, "review.summary_edit_failed");
                    return existing;
                }
            }
        }
        match platform.post_comment(&target, iid, body).await {
            Ok(id) => Some(id),
            Err(e) => {
                tracing::warn!(error = %e, "review.summary_post_failed");
                existing
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn summary_body(
    round: i32,
    grade: crate::review::rating::Rating,
    value: u32,
    all: &[PlacedComment],
    new: usize,
    summary: &str,
    reviewed: usize,
    failed: usize,
) -> String {
    let count = |s: crate::review::rating::Severity| all.iter().filter(|c| c.severity == s).count();
    use crate::review::rating::Severity::{Error, Info, Warning};
    let mut body = format!(
        "### reviewd: rating {grade} ({value}/100)\n\nRound {round}: {reviewed} file(s) reviewed, {} error(s), {} warning(s), {} info; {new} new comment(s).\n",
        count(Error),
        count(Warning),
        count(Info)
    );
    if failed > 0 {
        body.push_str(&format!(
            "\n{failed} file(s) could not be reviewed this round.\n"
        ));
    }
    if !summary.is_empty() {
        body.push_str(&format!("\n{summary}\n"));
    }
    body
}

/// The server's record of each model call: the AI log of the review.
struct AiCallLog<'a> {
    reviews: &'a dyn ReviewRepository,
    review_id: Uuid,
    provider: &'a str,
    model: &'a str,
}

#[async_trait::async_trait]
impl CallRecorder for AiCallLog<'_> {
    async fn record(&self, call: ModelCall<'_>) {
        let completion = call.completion;
        let duration = completion.map_or(call.elapsed, |c| c.duration);
        let record = AiCallRecord {
            review_id: Some(self.review_id),
            file_path: Some(call.file_path.to_owned()),
            provider: self.provider.to_owned(),
            model: completion.map_or_else(|| self.model.to_owned(), |c| c.model.clone()),
            success: call.error.is_none(),
            duration_ms: u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
            prompt_tokens: completion.map_or(0, |c| c.usage.prompt),
            completion_tokens: completion.map_or(0, |c| c.usage.completion),
            total_tokens: completion.map_or(0, |c| c.usage.total),
            error_message: call.error,
        };
        if let Err(e) = self.reviews.log_ai_call(record).await {
            tracing::warn!(error = %e, "review.ai_log_failed");
        }
    }
}
