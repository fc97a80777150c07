//! One claimed task, from an empty workspace to a submitted result: each phase
//! reported, the log streamed, every step timed, the workspace removed whatever
//! happens.

mod analyze;
mod convert;
mod work;

use crate::checkout::CheckoutSource;
use crate::config::RunnerConfig;
use crate::git::Workspace;
use crate::logs::TaskLog;
use crate::server::{ServerClient, ServerError};
use convert::{active_rule, severity};
use futures_util::StreamExt;
use reviewd_ai_openai::OpenAiProvider;
use reviewd_domain::context::{self, CodeReader, ContextCaches, RoundContext, RoundRequest};
use reviewd_domain::model::AiPrices;
use reviewd_domain::model::SecretString;
use reviewd_domain::model::diff::FileDiff;
use reviewd_domain::ports::{ActiveRule, SyntaxAnalyzer};
use reviewd_domain::review::file_review::{
    AskSettings, CallRecorder, FileContext, FileReview, FileVerdict, ModelCall,
};
use reviewd_domain::review::model_chain::{ChainLink, ModelChain};
use reviewd_domain::review::mr_summary::{self, FileOutcome};
use reviewd_domain::review::rating::{rating, score};
use reviewd_domain::review::rules;
use reviewd_domain::review::tools::RoundTools;
use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_runner_protocol::{
    self as protocol, AssignedFile, ClaimedTask, RunnerComment, RunnerFileResult, RunnerMetrics,
    RunnerOutcome, RunnerPhase, RunnerResult, RunnerSuggestion,
};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// Attempts per prompt when the model's answer is off-schema (as on the server).
const ANSWER_ATTEMPTS: u32 = 2;
/// How often the log is sent while a task runs.
const LOG_FLUSH_EVERY: Duration = Duration::from_secs(1);

/// What every job shares.
#[derive(Clone)]
pub struct JobContext {
    pub server: ServerClient,
    pub config: Arc<RunnerConfig>,
    pub runner_id: String,
    pub ai_policy: RetryPolicy,
    /// The parser of the code read for context.
    pub analyzer: Arc<dyn SyntaxAnalyzer>,
    /// Contents, outlines and indexes shared by this runner's tasks.
    pub caches: Arc<ContextCaches>,
}

impl std::fmt::Debug for JobContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobContext")
            .field("server", &self.server)
            .field("runner_id", &self.runner_id)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Default, Clone, Copy)]
struct Timings {
    prepare_ms: u64,
    clone_ms: u64,
    review_ms: u64,
}

/// The part of a job that can be cut short (stop, timeout).
struct Work<'a> {
    ctx: &'a JobContext,
    task: &'a ClaimedTask,
    /// The task's rules, as the engine's code applies them.
    rules: Vec<ActiveRule>,
    log: &'a TaskLog,
    timings: &'a Mutex<Timings>,
    tokens: AtomicU64,
    /// Of `tokens`, the prompt's and the completion's: the server prices each.
    prompt_tokens: AtomicU64,
    completion_tokens: AtomicU64,
    /// Of the prompt's, those the provider served from its cache.
    cached_tokens: AtomicU64,
}

/// What the work produced.
struct Reviewed {
    files: Vec<RunnerFileResult>,
    /// A provider outage or rate limit: the whole task is worth another attempt.
    retry_reason: Option<String>,
    /// The note's summary, written by the model for the MR.
    summary: Option<protocol::MrSummary>,
    /// What gathering the context cost and found.
    context: Option<protocol::ContextStats>,
}

fn ms(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Runs the task to a submitted result. `stop` cuts it short with a failed result
/// (the server gives the task another attempt).
pub async fn run(ctx: &JobContext, task: ClaimedTask, stop: CancellationToken) {
    let started = Instant::now();
    let mut secrets = vec![ctx.config.token.clone()];
    secrets.extend(task.clone_credentials.as_ref().map(|c| c.password.clone()));
    secrets.extend(task.ai.api_key.clone());
    secrets.extend(ctx.config.ai_api_key.clone());
    let log = Arc::new(TaskLog::new(task.id, secrets));
    log.line(format!(
        "task {} (attempt {}): {} !{} at {}, {} file(s)",
        task.id,
        task.attempt,
        task.project_path,
        task.mr_iid,
        short(&task.commit_sha),
        task.files.len()
    ));

    let done = CancellationToken::new();
    let flusher = {
        let (log, server, done) = (log.clone(), ctx.server.clone(), done.clone());
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = done.cancelled() => return,
                    () = tokio::time::sleep(LOG_FLUSH_EVERY) => log.flush(&server).await,
                }
            }
        })
    };

    let timings = Mutex::new(Timings::default());
    let work = Work {
        ctx,
        task: &task,
        rules: task.rules.iter().map(active_rule).collect(),
        log: &log,
        timings: &timings,
        tokens: AtomicU64::new(0),
        prompt_tokens: AtomicU64::new(0),
        completion_tokens: AtomicU64::new(0),
        cached_tokens: AtomicU64::new(0),
    };
    // Stop a tenth before the server's lease ends, so the result (a failure) still
    // reaches it while the task is ours.
    let limit = Duration::from_millis((task.timeout_ms / 10 * 9).max(1_000));
    let outcome = tokio::select! {
        r = tokio::time::timeout(limit, work.run()) => match r {
            Ok(r) => r,
            Err(_) => Err(format!("the review took longer than {} s", limit.as_secs())),
        },
        () = stop.cancelled() => Err("the runner was stopped before the task finished".to_owned()),
    };
    remove_workspace(&ctx.config, &task).await;

    let submit_started = Instant::now();
    if let Err(e) = ctx.server.phase(task.id, RunnerPhase::Submitting).await {
        tracing::warn!(task.id = %task.id, error = %e, "runner.phase_not_reported");
    }
    let (status, files, error, summary, context) = match outcome {
        Ok(Reviewed {
            files,
            retry_reason: None,
            summary,
            context,
        }) => (RunnerOutcome::Success, files, None, summary, context),
        Ok(Reviewed {
            files,
            retry_reason: Some(reason),
            context,
            ..
        }) => (RunnerOutcome::Failed, files, Some(reason), None, context),
        Err(e) => (RunnerOutcome::Failed, Vec::new(), Some(e), None, None),
    };
    match &error {
        Some(e) => log.line(format!("failed: {e}")),
        None => log.line(format!(
            "reviewed {} file(s), {} comment(s)",
            files.len(),
            files.iter().map(|f| f.comments.len()).sum::<usize>()
        )),
    }
    done.cancel();
    let _ = flusher.await;
    log.flush(&ctx.server).await;

    let total_comments = files.iter().map(|f| f.comments.len()).sum::<usize>();
    let grade = (status == RunnerOutcome::Success).then(|| {
        let severities = files
            .iter()
            .flat_map(|f| f.comments.iter().map(|c| severity(c.severity)));
        rating(score(severities)).to_string()
    });
    let t = timings.lock().map(|t| *t).unwrap_or_default();
    let tokens = work.tokens.load(Ordering::Relaxed);
    let result = RunnerResult {
        runner_id: ctx.runner_id.clone(),
        status,
        total_comments: u64::try_from(total_comments).unwrap_or(u64::MAX),
        files,
        rating: grade,
        metrics: RunnerMetrics {
            duration_ms: ms(started),
            container_prepare_ms: t.prepare_ms,
            clone_ms: t.clone_ms,
            review_ms: t.review_ms,
            submit_ms: ms(submit_started),
            tokens_used: (tokens > 0).then_some(tokens),
            prompt_tokens: (tokens > 0).then(|| work.prompt_tokens.load(Ordering::Relaxed)),
            completion_tokens: (tokens > 0).then(|| work.completion_tokens.load(Ordering::Relaxed)),
            cached_tokens: (tokens > 0).then(|| work.cached_tokens.load(Ordering::Relaxed)),
        },
        error,
        logs: Some(log.remainder()).filter(|l| !l.is_empty()),
        summary,
        context,
    };
    match ctx.server.result(task.id, &result).await {
        Ok(()) => {
            tracing::info!(task.id = %task.id, status = ?result.status, duration_ms = result.metrics.duration_ms, "runner.result_submitted")
        }
        Err(ServerError::NotHeld(e)) => {
            tracing::warn!(task.id = %task.id, error = %e, "runner.result_refused");
        }
        // The server gives the task to another runner when its lease ends.
        Err(e) => tracing::error!(task.id = %task.id, error = %e, "runner.result_not_delivered"),
    }
}

async fn remove_workspace(config: &RunnerConfig, task: &ClaimedTask) {
    let dir = config.work_root().join(task.id.to_string());
    if tokio::fs::try_exists(&dir).await.unwrap_or(false)
        && let Err(e) = tokio::fs::remove_dir_all(&dir).await
    {
        tracing::warn!(dir = %dir.display(), error = %e, "runner.workspace_not_removed");
    }
}

fn short(sha: &str) -> &str {
    sha.get(..12).unwrap_or(sha)
}
