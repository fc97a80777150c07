//! The runner protocol: registration, heartbeats, atomic claims, phases, logs and
//! results. A round is prepared on the server (the same `begin_round` as the
//! server's workers), ahead of the claim by the preparer (`prepare`) or, when none
//! is ready, inside the claim (`claim`); a result is concluded by the same engine
//! code, so a runner's review posts, deduplicates and rates exactly like the
//! server's own.

mod claim;
mod prepare;

pub use prepare::PrepareReport;

use super::ServiceError;
use super::review_engine::ReviewEngine;
use super::tasks::TaskService;
use crate::model::runner::{
    ClaimedTask, Runner, RunnerOutcome, RunnerPhase, RunnerRegistration, RunnerResult, RunnerStatus,
};
use crate::ports::{
    ClaimBatch, Clock, HeldTask, RepoError, RunnerRepository, SweepReport, TaskRepository,
};
use chrono::{DateTime, Utc};
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

/// Most lines one log call may append.
pub const MAX_LOG_LINES: usize = 200;
/// Most tasks one claim may take.
pub const MAX_CLAIM: u32 = 50;
/// How often, and how long each time, a claim waits for tasks being prepared.
const CLAIM_WAITS: u32 = 40;
const CLAIM_WAIT: Duration = Duration::from_millis(25);

#[derive(Debug, Clone)]
pub struct RunnerSettings {
    /// How long a claimed task is presumed alive without news (`REVIEW_TIMEOUT_MINUTES`).
    pub task_lease: Duration,
    /// Silence after which a runner counts as offline (`RUNNER_HEARTBEAT_TIMEOUT_MS`).
    pub heartbeat_timeout: Duration,
    /// How long a new task is left for a capable online runner before the server's
    /// own workers take it (`RUNNER_CLAIM_GRACE_MS`).
    pub claim_grace: Duration,
    /// How long a task given back after a failed attempt waits before a runner may
    /// claim it again (`QUEUE_RETRY_DELAY_SECS`), so an outage does not use up its
    /// attempts in seconds.
    pub retry_delay: Duration,
    /// How long a round prepared ahead of a claim stays good
    /// (`RUNNER_PREPARED_MAX_AGE_SECS`): older, it is prepared again, and claims
    /// prepare it inline meanwhile. Zero: nothing is prepared ahead.
    pub prepared_max_age: Duration,
    /// Rounds one preparer pass prepares at once.
    pub prepare_concurrency: usize,
}

pub struct RunnerService {
    runners: Arc<dyn RunnerRepository>,
    tasks: Arc<dyn TaskRepository>,
    task_service: Arc<TaskService>,
    engine: Arc<ReviewEngine>,
    projects: Arc<super::ProjectService>,
    settings: RunnerSettings,
    clock: Arc<dyn Clock>,
}

fn wrong_key(runner_id: &str) -> ServiceError {
    ServiceError::Forbidden(format!(
        "runner {runner_id} was registered with another API key"
    ))
}

fn not_held(task_id: Uuid) -> ServiceError {
    ServiceError::Conflict(format!(
        "task {task_id} is not held by this runner (never claimed by it, already finished or given back)"
    ))
}

impl RunnerService {
    pub fn new(
        runners: Arc<dyn RunnerRepository>,
        tasks: Arc<dyn TaskRepository>,
        task_service: Arc<TaskService>,
        engine: Arc<ReviewEngine>,
        projects: Arc<super::ProjectService>,
        settings: RunnerSettings,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            runners,
            tasks,
            task_service,
            engine,
            projects,
            settings,
            clock,
        }
    }

    /// # Errors
    /// Store failures.
    pub async fn register(
        &self,
        registration: &RunnerRegistration,
    ) -> Result<Runner, ServiceError> {
        if let (Ok(owner), Ok(existing)) = (
            self.runners.key_of(&registration.id).await,
            self.runners.get(&registration.id).await,
        ) && owner.is_some()
            && owner != registration.api_key_id
            && existing.status != RunnerStatus::Offline
        {
            return Err(ServiceError::Conflict(format!(
                "runner id {} is in use by a runner registered with another API key; \
                 stop it (or DELETE /api/runners/{}) first",
                registration.id, registration.id
            )));
        }
        // A registration starts a runner process afresh: whatever this id held
        // before (a crash, or a claim whose answer was lost) goes back to the queue
        // now rather than at the end of its lease.
        if let Ok(report) = self.runners.deregister(&registration.id).await
            && !report.requeued.is_empty()
        {
            tracing::warn!(runner.id = %registration.id, requeued = report.requeued.len(), "runner.reregistered_released_tasks");
            self.requeue(&report).await;
        }
        let runner = self.runners.upsert(registration).await?;
        tracing::info!(runner.id = %runner.id, tags = ?runner.tags, "runner.registered");
        Ok(runner)
    }

    /// Refuses a runner call made with another API key than the runner registered
    /// with: one team's key cannot drive, or take the tasks of, another's runner.
    async fn check_key(&self, runner_id: &str, caller_key: Uuid) -> Result<(), ServiceError> {
        let owner = self
            .runners
            .key_of(runner_id)
            .await
            .map_err(|e| ServiceError::from_repo(e, "runner"))?;
        match owner {
            Some(owner) if owner != caller_key => Err(wrong_key(runner_id)),
            _ => Ok(()),
        }
    }

    /// # Errors
    /// `NotFound` for an unknown runner; `Forbidden` for another key's runner.
    pub async fn heartbeat(
        &self,
        caller_key: Uuid,
        id: &str,
        status: RunnerStatus,
        current_jobs: i32,
    ) -> Result<Runner, ServiceError> {
        self.check_key(id, caller_key).await?;
        self.runners
            .heartbeat(id, status, current_jobs)
            .await
            .map_err(|e| ServiceError::from_repo(e, "runner"))
    }

    /// # Errors
    /// `NotFound`.
    pub async fn get(&self, id: &str) -> Result<Runner, ServiceError> {
        self.runners
            .get(id)
            .await
            .map_err(|e| ServiceError::from_repo(e, "runner"))
    }

    /// # Errors
    /// Store failures.
    pub async fn list(&self) -> Result<Vec<Runner>, ServiceError> {
        Ok(self.runners.list().await?)
    }

    /// Marks the runner offline; its tasks go back to the queue at once.
    ///
    /// # Errors
    /// `NotFound`.
    pub async fn deregister(&self, id: &str) -> Result<Runner, ServiceError> {
        let report = self
            .runners
            .deregister(id)
            .await
            .map_err(|e| ServiceError::from_repo(e, "runner"))?;
        self.requeue(&report).await;
        tracing::info!(runner.id = %id, requeued = report.requeued.len(), "runner.deregistered");
        self.get(id).await
    }

    /// Claims up to `limit` tasks for the runner: rounds prepared ahead first,
    /// handed out as stored; else queued tasks, each one's round prepared here. A
    /// task whose preparation fails transiently goes back to the queue; one whose
    /// head was already reviewed completes without the runner.
    ///
    /// # Errors
    /// `NotFound` for an unknown runner; `Forbidden` for another key's runner;
    /// store failures.
    pub async fn claim(
        &self,
        caller_key: Uuid,
        runner_id: &str,
        limit: u32,
    ) -> Result<Vec<ClaimedTask>, ServiceError> {
        let max_age = self.settings.prepared_max_age;
        let mut waits = 0;
        let rows = loop {
            // Preparing ahead off, no preparation can be fresh: the claim does not look.
            let fresh_after = (!max_age.is_zero()).then(|| self.ago(max_age));
            let batch = self
                .runners
                .claim_ready(
                    runner_id,
                    caller_key,
                    limit.clamp(1, MAX_CLAIM),
                    self.settings.task_lease,
                    self.settings.retry_delay,
                    fresh_after,
                )
                .await
                .map_err(|e| ServiceError::from_repo(e, "runner"))?;
            match batch {
                ClaimBatch::WrongKey => return Err(wrong_key(runner_id)),
                ClaimBatch::Claimed(rows) => break rows,
                // The next tasks are being prepared: a short wait hands them out
                // ready, where an empty answer would cost the runner a poll interval.
                ClaimBatch::Held if waits < CLAIM_WAITS => {
                    waits += 1;
                    self.clock.sleep(CLAIM_WAIT).await;
                }
                ClaimBatch::Held => break Vec::new(),
            }
        };
        let mut claimed = Vec::with_capacity(rows.len());
        for row in rows {
            let task = match row.prepared {
                Some(prepared) => self.hand_out(&row.task, prepared, runner_id).await?,
                None => self.prepare_inline(&row.task, runner_id).await?,
            };
            claimed.extend(task);
        }
        Ok(claimed)
    }

    /// `now - d` on the service's clock.
    fn ago(&self, d: Duration) -> DateTime<Utc> {
        self.clock.now() - chrono::Duration::from_std(d).unwrap_or(chrono::Duration::MAX)
    }

    /// Whether a server worker should leave this queued task to a runner for now: it
    /// was queued within the claim grace and a capable runner is online with room.
    /// Any failure answers no, so the server runs the task itself.
    pub async fn leave_to_runner(&self, task_id: Uuid) -> bool {
        if self.settings.claim_grace.is_zero() {
            return false;
        }
        match self
            .runners
            .runner_can_take(
                task_id,
                self.ago(self.settings.claim_grace),
                self.ago(self.settings.heartbeat_timeout),
            )
            .await
        {
            Ok(waits) => waits,
            Err(e) => {
                tracing::warn!(task.id = %task_id, error = %e, "runner.capacity_check_failed");
                false
            }
        }
    }

    /// The task if a runner holds it (and, when named, that runner).
    async fn held_by(
        &self,
        caller_key: Uuid,
        task_id: Uuid,
        runner_id: Option<&str>,
    ) -> Result<HeldTask, ServiceError> {
        let held = match self.runners.held(task_id).await {
            Ok(h) => h,
            Err(RepoError::NotFound) => {
                // Unknown id (404) versus a task no runner holds now (409).
                self.tasks
                    .get(task_id)
                    .await
                    .map_err(|e| ServiceError::from_repo(e, "task"))?;
                return Err(not_held(task_id));
            }
            Err(e) => return Err(e.into()),
        };
        if runner_id.is_some_and(|r| r != held.runner_id) {
            return Err(not_held(task_id));
        }
        self.check_key(&held.runner_id, caller_key).await?;
        Ok(held)
    }

    /// # Errors
    /// `NotFound` for an unknown task; `Conflict` when no runner holds it.
    pub async fn set_phase(
        &self,
        caller_key: Uuid,
        task_id: Uuid,
        phase: RunnerPhase,
    ) -> Result<(), ServiceError> {
        let held = self.held_by(caller_key, task_id, None).await?;
        self.runners
            .set_phase(task_id, &held.runner_id, phase)
            .await
            .map_err(|_| not_held(task_id))?;
        tracing::info!(task.id = %task_id, phase = phase.as_str(), "runner.task_phase");
        Ok(())
    }

    /// Appends 1 to 200 lines to the task's log.
    ///
    /// # Errors
    /// `Invalid` for an empty or too long batch; `NotFound`/`Conflict` as above.
    pub async fn append_logs(
        &self,
        caller_key: Uuid,
        task_id: Uuid,
        lines: &[String],
    ) -> Result<u64, ServiceError> {
        check_log_batch(lines)?;
        self.held_by(caller_key, task_id, None).await?;
        Ok(self.runners.append_logs(task_id, lines).await?)
    }

    /// The task's log lines.
    ///
    /// # Errors
    /// Store failures.
    pub async fn logs(
        &self,
        task_id: Uuid,
    ) -> Result<Vec<(i32, String, DateTime<Utc>)>, ServiceError> {
        Ok(self.runners.logs(task_id).await?)
    }

    /// Records a runner's result once and concludes the review with it.
    ///
    /// # Errors
    /// `Invalid` for inconsistent counts or a rating that is not a grade; `NotFound`;
    /// `Conflict` when the runner does
    /// not hold the task (a second result included).
    pub async fn submit_result(
        &self,
        caller_key: Uuid,
        task_id: Uuid,
        result: &RunnerResult,
    ) -> Result<(), ServiceError> {
        if let Some(rating) = &result.rating
            && !["A", "B", "C", "D", "F"].contains(&rating.as_str())
        {
            return Err(ServiceError::invalid(
                "rating",
                "must be one of A, B, C, D, F",
            ));
        }
        let counted: usize = result.files.iter().map(|f| f.comments.len()).sum();
        if u64::try_from(counted).unwrap_or(u64::MAX) != result.total_comments {
            return Err(ServiceError::Invalid(vec![super::FieldError::new(
                "totalComments",
                format!(
                    "is {} but the files carry {counted} comment(s)",
                    result.total_comments
                ),
            )]));
        }
        let held = self
            .held_by(caller_key, task_id, Some(&result.runner_id))
            .await?;
        let body =
            serde_json::to_value(result).map_err(|e| ServiceError::Internal(e.to_string()))?;
        let metrics = serde_json::to_value(&result.metrics)
            .map_err(|e| ServiceError::Internal(e.to_string()))?;
        self.runners
            .accept_result(task_id, &result.runner_id, &body, &metrics)
            .await
            .map_err(|_| not_held(task_id))?;
        if let Some(lines) = result.logs.as_deref().filter(|l| !l.is_empty()) {
            for batch in lines.chunks(MAX_LOG_LINES) {
                self.runners.append_logs(task_id, batch).await?;
            }
        }
        self.runners
            .count_finished(&result.runner_id, result.status)
            .await?;
        let task = held.task;
        let Some(assignment) = held.assignment else {
            let message = "the task was claimed without a round";
            self.tasks.fail(task_id, message).await?;
            self.engine.task_failed(&task, message).await;
            return Ok(());
        };
        if result.status == RunnerOutcome::Failed {
            let message = result
                .error
                .clone()
                .unwrap_or_else(|| "the runner reported a failure".to_owned());
            self.engine.fail_runner_round(&assignment, &message).await?;
            return self.retry_or_fail(&task, &message).await;
        }
        match self
            .engine
            .conclude_runner(&task, &assignment, result)
            .await
        {
            Ok(review_id) => {
                self.tasks.complete(task_id, Some(review_id)).await?;
                tracing::info!(task.id = %task_id, review.id = %review_id, runner.id = %result.runner_id, "runner.task_completed");
                Ok(())
            }
            Err(f) if f.transient => self.retry_or_fail(&task, &f.message).await,
            Err(f) => {
                self.tasks.fail(task_id, &f.message).await?;
                self.engine.task_failed(&task, &f.message).await;
                Ok(())
            }
        }
    }

    /// Another attempt while attempts remain (bounded), else failed.
    async fn retry_or_fail(
        &self,
        task: &crate::model::ReviewTask,
        message: &str,
    ) -> Result<(), ServiceError> {
        if task.attempts < task.max_attempts {
            self.tasks.requeue(task.id, message).await?;
            self.task_service.push_again(task.id).await?;
            tracing::warn!(task.id = %task.id, attempt = task.attempts, error = %message, "runner.task_retrying");
        } else {
            self.tasks.fail(task.id, message).await?;
            tracing::error!(task.id = %task.id, error = %message, "runner.task_failed");
            self.engine.task_failed(task, message).await;
        }
        Ok(())
    }

    /// Marks runners silent for `timeout` offline; their tasks go back to the queue
    /// (or fail when out of attempts).
    ///
    /// # Errors
    /// Store failures.
    pub async fn sweep(&self, timeout: Duration) -> Result<SweepReport, ServiceError> {
        let before =
            self.clock.now() - chrono::Duration::from_std(timeout).unwrap_or(chrono::Duration::MAX);
        let report = self.runners.sweep_silent(before).await?;
        self.requeue(&report).await;
        if report.runners_offline > 0 || !report.requeued.is_empty() {
            tracing::warn!(
                offline = report.runners_offline,
                requeued = report.requeued.len(),
                failed = report.failed.len(),
                "runners.swept"
            );
        }
        Ok(report)
    }

    async fn requeue(&self, report: &SweepReport) {
        for id in &report.failed {
            // Out of attempts: the review it left open is closed as failed.
            match self.tasks.get(*id).await {
                Ok(task) => {
                    let message = task
                        .error_message
                        .clone()
                        .unwrap_or_else(|| "the runner holding it went silent".into());
                    if let Err(e) = self.engine.abandon(&task, &message).await {
                        tracing::warn!(task.id = %id, error = %e, "runner.review_not_closed");
                    }
                }
                Err(e) => tracing::warn!(task.id = %id, error = %e, "runner.review_not_closed"),
            }
        }
        for id in &report.requeued {
            if let Err(e) = self.task_service.push_again(*id).await {
                // The task is `queued` in Postgres: runners still see it, and the
                // orphan sweep queues it for the server's workers.
                tracing::warn!(task.id = %id, error = %e, "runner.requeue_push_failed");
            }
        }
    }
}

/// `https://host/group/project` → `https://host/group/project.git`.
fn repository_url(web_url: &str) -> String {
    let base = web_url.trim_end_matches('/');
    if base.ends_with(".git") || base.starts_with("file://") || base.starts_with('/') {
        base.to_owned()
    } else {
        format!("{base}.git")
    }
}

fn check_log_batch(lines: &[String]) -> Result<(), ServiceError> {
    if lines.is_empty() || lines.len() > MAX_LOG_LINES {
        return Err(ServiceError::Invalid(vec![super::FieldError::new(
            "logs",
            format!("must hold 1 to {MAX_LOG_LINES} lines, not {}", lines.len()),
        )]));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repository_urls_end_in_git_except_local_paths() {
        assert_eq!(
            repository_url("https://gitlab.example.com/g/p"),
            "https://gitlab.example.com/g/p.git"
        );
        assert_eq!(
            repository_url("https://github.com/o/r/"),
            "https://github.com/o/r.git"
        );
        assert_eq!(
            repository_url("file:///srv/git/r.git"),
            "file:///srv/git/r.git"
        );
    }

    #[test]
    fn log_batches_hold_one_to_two_hundred_lines() {
        assert!(check_log_batch(&[]).is_err());
        assert!(check_log_batch(&vec!["x".to_owned(); 200]).is_ok());
        assert!(check_log_batch(&vec!["x".to_owned(); 201]).is_err());
    }
}
