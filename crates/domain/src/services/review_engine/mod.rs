//! The review engine: runs one queued task from the MR's diff to comments posted on
//! the platform and a finished review record. Entry points and the outcome of an
//! attempt are here; the steps are in the submodules.

pub(crate) mod ai_log;
mod conclude;
mod context;
mod gate;
mod guidance;
mod repo_file;
mod retry;
mod round;
mod runner;

pub(crate) use runner::{Assigned, RunnerRound};

use super::ServiceError;
use super::ai_configs::AiConfigService;
use super::projects::ProjectService;
use crate::model::ReviewId;
use crate::model::ReviewTask;
use crate::model::review::{ReviewOutcome, ReviewStatus, RoundRef};
use crate::ports::{
    AttemptEnd, AttemptStart, CatalogRepository, PlatformError, ReviewRepository, TaskRepository,
};
use round::Begun;
use std::sync::Arc;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct EngineSettings {
    /// Files reviewed at once within one review.
    pub file_concurrency: usize,
    /// Largest diff piece sent in one prompt, in characters (about 4 per token).
    pub max_diff_chars: usize,
    pub max_tokens: Option<u32>,
    pub temperature: Option<f64>,
    /// Attempts per prompt when the answer is unusable (off-schema JSON).
    pub answer_attempts: u32,
    /// How long an attempt is presumed alive after its last heartbeat: another task
    /// of the same MR waits that long at most, and another worker takes the task over
    /// after it (the queue's reclaim idle time).
    pub attempt_lease: std::time::Duration,
    /// The context read beyond each file's diff (a project's budget and the
    /// repository's `.reviewd.yml` refine it per round).
    pub context: crate::context::ContextSettings,
    /// The dashboard's address (`APP_URL`): the merge gate links to the review's
    /// page under it.
    pub app_url: Option<String>,
}

impl Default for EngineSettings {
    fn default() -> Self {
        Self {
            file_concurrency: 3,
            max_diff_chars: 24_000,
            max_tokens: Some(2_000),
            temperature: Some(0.1),
            answer_attempts: 2,
            attempt_lease: std::time::Duration::from_secs(60),
            context: crate::context::ContextSettings::default(),
            app_url: None,
        }
    }
}

/// What became of a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunOutcome {
    Completed {
        review_id: ReviewId,
    },
    /// The task is no longer runnable (superseded, done, out of attempts), or
    /// there was nothing to review (a draft the repository's `.reviewd.yml` skips,
    /// recorded as completed without a review): drop it.
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
    /// Another worker took the task over while this attempt ran (this worker went
    /// silent past the lease): nothing was recorded; the message is the other's.
    TakenOver,
    /// A conversation was answered (or found answered, or left unanswered on purpose).
    Answered,
}

/// What one attempt came to, short of a failure.
enum Reviewed {
    Review(ReviewId),
    /// Nothing to review: the task is done without a review.
    Nothing,
    /// Another worker took the task over before posting.
    TakenOver,
    /// A conversation's answer given (or found given, or not to be given).
    Answered,
}

/// A failure of one attempt, and whether a later attempt may succeed.
pub(crate) struct Failure {
    pub(crate) transient: bool,
    pub(crate) message: String,
}

impl Failure {
    pub(crate) fn permanent(message: impl Into<String>) -> Self {
        Self {
            transient: false,
            message: message.into(),
        }
    }

    pub(crate) fn transient(message: impl Into<String>) -> Self {
        Self {
            transient: true,
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

pub struct ReviewEngine {
    tasks: Arc<dyn TaskRepository>,
    reviews: Arc<dyn ReviewRepository>,
    projects: Arc<ProjectService>,
    catalog: Arc<dyn CatalogRepository>,
    /// Which AI configuration each review uses, and its provider.
    ai: Arc<AiConfigService>,
    settings: EngineSettings,
    observer: Option<Arc<dyn crate::ports::ReviewObserver>>,
    /// Reads `.reviewd.yml`; without it the file is not looked for.
    repo_config: Option<Arc<dyn crate::ports::RepoConfigParser>>,
    /// Marks comments a later round implemented and leaves out those a project
    /// rejected; without it neither happens.
    feedback: Option<Arc<crate::services::FeedbackService>>,
    /// The parser and the caches of the code read for context.
    code: CodeReading,
    /// Answers the tasks that answer conversations; without it they fail.
    talk: Option<Arc<crate::services::ConversationService>>,
    /// The projects' learnings, sent with every review's rules.
    learnings: Option<Arc<dyn crate::ports::LearningRepository>>,
    /// Analyzers' results uploaded from CI; without it none are read.
    analysis: Option<Arc<dyn crate::ports::AnalysisRepository>>,
}

/// How the engine reads code for context: the parser (none: windows of lines
/// around each hunk, no symbol index) and the caches shared by its rounds.
#[derive(Clone, Default)]
struct CodeReading {
    analyzer: Option<Arc<dyn crate::ports::SyntaxAnalyzer>>,
    caches: Arc<crate::context::ContextCaches>,
}

impl ReviewEngine {
    pub fn new(
        tasks: Arc<dyn TaskRepository>,
        reviews: Arc<dyn ReviewRepository>,
        projects: Arc<ProjectService>,
        catalog: Arc<dyn CatalogRepository>,
        ai: Arc<AiConfigService>,
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
            repo_config: None,
            feedback: None,
            code: CodeReading::default(),
            talk: None,
            learnings: None,
            analysis: None,
        }
    }

    /// Parses code with `analyzer` for context: enclosing symbols, the symbol
    /// index, definitions and callers.
    #[must_use]
    pub fn parses_code_with(mut self, analyzer: Arc<dyn crate::ports::SyntaxAnalyzer>) -> Self {
        self.code.analyzer = Some(analyzer);
        self
    }

    /// Shares `caches` (contents by blob id, outlines, indexes) with the rest of
    /// the process.
    #[must_use]
    pub fn shares_context_caches(mut self, caches: Arc<crate::context::ContextCaches>) -> Self {
        self.code.caches = caches;
        self
    }

    /// Marks implemented comments and leaves out rejected ones through `feedback`.
    #[must_use]
    pub fn tracks_feedback(mut self, feedback: Arc<crate::services::FeedbackService>) -> Self {
        self.feedback = Some(feedback);
        self
    }

    /// Runs the tasks that answer conversations (commands, questions) with `talk`.
    #[must_use]
    pub fn answers_with(mut self, talk: Arc<crate::services::ConversationService>) -> Self {
        self.talk = Some(talk);
        self
    }

    /// Sends each project's learnings with its reviews' rules.
    #[must_use]
    pub fn learns_from(mut self, learnings: Arc<dyn crate::ports::LearningRepository>) -> Self {
        self.learnings = Some(learnings);
        self
    }

    /// Reads the analyzers' results uploaded for each round's head from `analysis`.
    #[must_use]
    pub fn reads_uploads(mut self, analysis: Arc<dyn crate::ports::AnalysisRepository>) -> Self {
        self.analysis = Some(analysis);
        self
    }

    /// The findings uploaded for `head`: none when uploads are not read or the store
    /// fails (the review goes on without them; the failure is logged).
    pub(crate) async fn uploaded_findings(
        &self,
        project_id: &crate::model::ProjectId,
        head: &str,
    ) -> Vec<crate::review::tools::ToolFinding> {
        let Some(analysis) = &self.analysis else {
            return Vec::new();
        };
        match analysis.findings_for(*project_id, head).await {
            Ok(found) => found,
            Err(e) => {
                tracing::warn!(project.id = %project_id, head, error = %e, "review.uploads_not_read");
                Vec::new()
            }
        }
    }

    /// Tells `observer` of every review that finishes (notifications).
    #[must_use]
    pub fn observed_by(mut self, observer: Arc<dyn crate::ports::ReviewObserver>) -> Self {
        self.observer = Some(observer);
        self
    }

    /// Reads each MR's `.reviewd.yml` at its head with `parser` and applies it.
    #[must_use]
    pub fn reads_repo_config(mut self, parser: Arc<dyn crate::ports::RepoConfigParser>) -> Self {
        self.repo_config = Some(parser);
        self
    }

    fn finished(&self, review_id: ReviewId, status: ReviewStatus) {
        if let Some(observer) = &self.observer {
            observer.review_finished(review_id, status);
        }
    }

    /// A task failed for good: its review is closed as failed if a round left it
    /// `pending`, and observers are told (a round failed on an attempt that is
    /// retried is not reported: the retry may still complete it).
    pub(crate) async fn task_failed(&self, task: &ReviewTask, message: &str) {
        if task.conversation_id.is_some() {
            return self.abandon(task, message).await.unwrap_or(());
        }
        match self.reviews.find_for_mr(task.project_id, task.mr_iid).await {
            Ok(Some(review)) if review.status == ReviewStatus::Failed => {
                self.finished(review.id, ReviewStatus::Failed);
                if task.send_to_platform {
                    self.gate_after_failure(task, false).await;
                }
            }
            Ok(Some(review)) if review.status == ReviewStatus::Pending => {
                if let Err(e) = self.abandon(task, message).await {
                    tracing::warn!(task.id = %task.id, error = %e, "review.failure_not_recorded");
                }
            }
            // No review yet, or the last one concluded: the task's head is left
            // `pending` by the webhook unless it is closed here.
            Ok(_) => {
                if task.send_to_platform {
                    self.gate_after_failure(task, false).await;
                }
            }
            Err(e) => tracing::warn!(task.id = %task.id, error = %e, "review.failure_not_reported"),
        }
    }

    /// Runs one attempt of a task for `worker` (the process's stable name) and
    /// records its outcome on the task, unless another worker took the task over
    /// meanwhile. While it runs, the caller keeps the attempt alive with
    /// [`ReviewEngine::heartbeat`].
    ///
    /// # Errors
    /// Only store failures while starting the attempt or recording its outcome.
    pub async fn run(&self, task_id: Uuid, worker: &str) -> Result<RunOutcome, ServiceError> {
        let task = match self
            .tasks
            .begin_attempt(task_id, worker, self.settings.attempt_lease)
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
        tracing::info!(task.id = %task.id, attempt = task.attempts, mr.iid = task.mr_iid, worker, "review.started");
        let attempt = match task.conversation_id {
            Some(_) => self.converse(&task, worker).await,
            None => self.review(&task, worker).await,
        };
        let result = match attempt {
            Ok(Reviewed::TakenOver) => {
                tracing::warn!(task.id = %task.id, worker, "review.taken_over");
                return Ok(RunOutcome::TakenOver);
            }
            Ok(Reviewed::Nothing) => {
                let end = AttemptEnd::Completed { review_id: None };
                if !self.tasks.finish_attempt(task.id, worker, end).await? {
                    return Ok(RunOutcome::TakenOver);
                }
                return Ok(RunOutcome::Skipped);
            }
            Ok(Reviewed::Review(review_id)) => Ok(review_id),
            Ok(Reviewed::Answered) => {
                let end = AttemptEnd::Completed { review_id: None };
                if !self.tasks.finish_attempt(task.id, worker, end).await? {
                    return Ok(RunOutcome::TakenOver);
                }
                return Ok(RunOutcome::Answered);
            }
            Err(f) => Err(f),
        };
        let end = match &result {
            Ok(review_id) => AttemptEnd::Completed {
                review_id: Some(*review_id),
            },
            Err(f) if f.transient && task.attempts < task.max_attempts => {
                AttemptEnd::Requeued { error: &f.message }
            }
            Err(f) => AttemptEnd::Failed { error: &f.message },
        };
        if !self.tasks.finish_attempt(task.id, worker, end).await? {
            tracing::warn!(task.id = %task.id, worker, "review.taken_over");
            return Ok(RunOutcome::TakenOver);
        }
        Ok(match result {
            Ok(review_id) => {
                tracing::info!(task.id = %task.id, review.id = %review_id, "review.completed");
                RunOutcome::Completed { review_id }
            }
            Err(f) if f.transient && task.attempts < task.max_attempts => {
                tracing::warn!(task.id = %task.id, attempt = task.attempts, error = %f.message, "review.retrying");
                if task.send_to_platform {
                    self.gate_after_failure(&task, true).await;
                }
                RunOutcome::Retry { error: f.message }
            }
            Err(f) => {
                tracing::error!(task.id = %task.id, error = %f.message, "review.failed");
                self.task_failed(&task, &f.message).await;
                RunOutcome::Failed { error: f.message }
            }
        })
    }

    /// Keeps `worker`'s attempt on the task alive; `false` when the task is no longer
    /// its to run (finished, or taken over by another worker): the caller stops it.
    ///
    /// # Errors
    /// Store failures (the attempt may still be alive: try again at the next beat).
    pub async fn heartbeat(&self, task_id: Uuid, worker: &str) -> Result<bool, ServiceError> {
        Ok(self.tasks.renew_attempt(task_id, worker).await?)
    }

    /// Fails `worker`'s attempt that ran past the review timeout, and closes its
    /// review. Nothing changes when the attempt is no longer `worker`'s (a worker
    /// frozen past its timeout, taken over, then resumed never fails the task that
    /// another worker completed). Returns whether it failed the task.
    ///
    /// # Errors
    /// Store failures.
    pub async fn time_out(
        &self,
        task_id: Uuid,
        worker: &str,
        after: std::time::Duration,
    ) -> Result<bool, ServiceError> {
        let message = format!(
            "the review ran longer than its timeout ({} s) and was stopped",
            after.as_secs_f64()
        );
        let failed = self
            .tasks
            .finish_attempt(task_id, worker, AttemptEnd::Failed { error: &message })
            .await?;
        if failed && let Ok(task) = self.tasks.get(task_id).await {
            self.abandon(&task, &message).await?;
        }
        Ok(failed)
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
        // An answer that failed is its conversation's failure, not the review's.
        if task.conversation_id.is_some() {
            if let Some(talk) = &self.talk {
                talk.give_up(task, message).await;
            }
            return Ok(());
        }
        if let Ok(Some(review)) = self.reviews.find_for_mr(task.project_id, task.mr_iid).await
            && review.status == ReviewStatus::Pending
        {
            // The open round is left as it is (not completed, so it is redone next
            // time); only the review record is closed.
            let round = RoundRef {
                id: Uuid::nil(),
                number: review.round_number,
            };
            let outcome = ReviewOutcome::failed(&review, message);
            self.reviews
                .finish(review.id, round, &review.head_commit_sha, outcome)
                .await?;
            tracing::warn!(review.id = %review.id, task.id = %task.id, error = %message, "review.abandoned");
            self.finished(review.id, ReviewStatus::Failed);
        }
        if task.send_to_platform {
            self.gate_after_failure(task, false).await;
        }
        Ok(())
    }

    /// A conversation's answer.
    async fn converse(&self, task: &ReviewTask, worker: &str) -> Result<Reviewed, Failure> {
        let Some(talk) = &self.talk else {
            return Err(Failure::permanent(
                "this server does not answer conversations",
            ));
        };
        talk.answer(task, worker).await.map(|()| Reviewed::Answered)
    }

    /// The review, nothing to review, or the task taken over before posting.
    async fn review(&self, task: &ReviewTask, worker: &str) -> Result<Reviewed, Failure> {
        let (plan, ai) = match self.begin_round(task).await? {
            Begun::AlreadyReviewed(review_id) => return Ok(Reviewed::Review(review_id)),
            Begun::NotReviewed => return Ok(Reviewed::Nothing),
            Begun::Round(plan, ai) => (plan, ai),
        };
        // A provider that cannot be built will not be built on a later attempt either.
        let chain = self.ai.chain(&ai).await.map_err(|e| {
            Failure::permanent(format!(
                "the AI configuration `{}` is unusable: {e}",
                ai.name
            ))
        })?;
        let gathered = self.gather_context(&plan).await;
        let results = self.review_files(&plan, &gathered, &chain).await;
        let summary = self.summarize(&plan, &gathered, &chain, &results).await;
        // The model's work can outlast the lease (a frozen or cut-off process, whose
        // task another worker took over): post only while the attempt is still ours.
        if !self.tasks.renew_attempt(task.id, worker).await? {
            return Ok(Reviewed::TakenOver);
        }
        self.conclude(task, &plan, results, &summary)
            .await
            .map(Reviewed::Review)
    }
}
