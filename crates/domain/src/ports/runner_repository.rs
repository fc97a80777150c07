use super::RepoError;
use super::prepared_rounds::{ClaimBatch, Orphaned, PreparationBudget, TaskReservation};
use crate::model::ReviewTask;
use crate::model::runner::{
    Runner, RunnerAssignment, RunnerOutcome, RunnerPhase, RunnerRegistration, RunnerStatus,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// A task a runner holds, with the round it was given.
#[derive(Debug, Clone)]
pub struct HeldTask {
    pub task: ReviewTask,
    pub runner_id: String,
    pub assignment: Option<RunnerAssignment>,
}

/// What a sweep of silent runners did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SweepReport {
    pub runners_offline: u64,
    /// Tasks given back to the queue (their ids, to be queued again).
    pub requeued: Vec<Uuid>,
    /// Tasks out of attempts, failed (their reviews are to be closed as failed).
    pub failed: Vec<Uuid>,
}

/// Runners and the tasks they hold. Every transition of a held task is guarded by
/// the holder, so a late or repeated call changes nothing.
#[async_trait]
pub trait RunnerRepository: Send + Sync {
    /// Creates the runner or updates its fields (an existing id keeps its counters).
    ///
    /// # Errors
    /// Store failures.
    async fn upsert(&self, registration: &RunnerRegistration) -> Result<Runner, RepoError>;

    /// # Errors
    /// `NotFound` for an unknown runner.
    async fn heartbeat(
        &self,
        id: &str,
        status: RunnerStatus,
        current_jobs: i32,
    ) -> Result<Runner, RepoError>;

    /// # Errors
    /// `NotFound`.
    async fn get(&self, id: &str) -> Result<Runner, RepoError>;

    /// The API key the runner registered with (none for rows from before keys were
    /// recorded).
    ///
    /// # Errors
    /// `NotFound`.
    async fn key_of(&self, id: &str) -> Result<Option<Uuid>, RepoError>;

    /// Runners, the latest heartbeat first (never-seen last).
    ///
    /// # Errors
    /// Store failures.
    async fn list(&self) -> Result<Vec<Runner>, RepoError>;

    /// Marks the runner offline and gives its held tasks back to the queue (or fails
    /// those out of attempts).
    ///
    /// # Errors
    /// `NotFound`.
    async fn deregister(&self, id: &str) -> Result<SweepReport, RepoError>;

    /// Atomically claims up to `limit` queued tasks whose required tags the runner
    /// has, within its free capacity; marks them `processing` for this runner.
    ///
    /// # Errors
    /// `NotFound` for an unknown runner.
    /// A task given back after a failed attempt waits `retry_delay` (since it was
    /// queued again) before it can be claimed, as the server's workers wait.
    async fn claim(
        &self,
        runner_id: &str,
        limit: u32,
        lease: std::time::Duration,
        retry_delay: std::time::Duration,
    ) -> Result<Vec<ReviewTask>, RepoError>;

    /// # Errors
    /// Store failures.
    async fn save_assignment(
        &self,
        task_id: Uuid,
        assignment: &RunnerAssignment,
    ) -> Result<(), RepoError>;

    /// The task if a runner holds it (`processing`, claimed by a runner).
    ///
    /// # Errors
    /// `NotFound` when no runner holds it.
    async fn held(&self, task_id: Uuid) -> Result<HeldTask, RepoError>;

    /// # Errors
    /// `NotFound` when `runner_id` does not hold the task.
    async fn set_phase(
        &self,
        task_id: Uuid,
        runner_id: &str,
        phase: RunnerPhase,
    ) -> Result<(), RepoError>;

    /// Appends lines after the task's last one; returns the task's line count.
    ///
    /// # Errors
    /// Store failures.
    async fn append_logs(&self, task_id: Uuid, lines: &[String]) -> Result<u64, RepoError>;

    /// The task's log lines in order.
    ///
    /// # Errors
    /// Store failures.
    async fn logs(&self, task_id: Uuid) -> Result<Vec<(i32, String, DateTime<Utc>)>, RepoError>;

    /// Moves a held task to `in_progress` (result received, being concluded): the
    /// one call that wins; a second result finds it no longer held.
    ///
    /// # Errors
    /// `NotFound` when `runner_id` does not hold the task.
    async fn accept_result(
        &self,
        task_id: Uuid,
        runner_id: &str,
        result: &serde_json::Value,
        metrics: &serde_json::Value,
    ) -> Result<(), RepoError>;

    /// Updates the runner's counters for a finished task of its.
    ///
    /// # Errors
    /// Store failures.
    async fn count_finished(
        &self,
        runner_id: &str,
        outcome: RunnerOutcome,
    ) -> Result<(), RepoError>;

    /// Gives a claimed task back to the queue (claim-time preparation failed).
    ///
    /// # Errors
    /// Store failures.
    async fn release(&self, task_id: Uuid, runner_id: &str, error: &str) -> Result<(), RepoError>;

    /// Marks runners silent since `silent_before` offline and gives their tasks back.
    ///
    /// # Errors
    /// Store failures.
    async fn sweep_silent(&self, silent_before: DateTime<Utc>) -> Result<SweepReport, RepoError>;

    /// Whether the queued task should wait for a runner: it was queued after
    /// `queued_after` and an online runner with free capacity, heard from after
    /// `heard_after`, has the tags it requires.
    ///
    /// # Errors
    /// Store failures.
    async fn runner_can_take(
        &self,
        task_id: Uuid,
        queued_after: DateTime<Utc>,
        heard_after: DateTime<Utc>,
    ) -> Result<bool, RepoError>;

    /// [`claim`](Self::claim) in one short transaction, with the caller's key checked
    /// in it, and prepared tasks first: tasks prepared ahead (fresh since
    /// `fresh_after`, at the task's attempts, their round still open) are taken
    /// before any other, and come back with their round. When none is, the oldest
    /// queued tasks are taken as `claim` takes them, to be prepared inline.
    /// `fresh_after` is `None` when rounds are not prepared ahead: stored
    /// preparations are then not looked for.
    ///
    /// # Errors
    /// `NotFound` for an unknown runner.
    async fn claim_ready(
        &self,
        runner_id: &str,
        caller_key: uuid::Uuid,
        limit: u32,
        lease: std::time::Duration,
        retry_delay: std::time::Duration,
        fresh_after: Option<DateTime<Utc>>,
    ) -> Result<ClaimBatch, RepoError>;

    /// The next queued task to prepare ahead, held with its MR: queued (past its
    /// retry delay), not prepared since `fresh_after`, some runner heard from since
    /// `heard_after` has its tags, and no other task of its MR is under way or
    /// prepared. The oldest never prepared comes first, then the oldest whose
    /// preparation went stale. `None` when there is none (or all are held).
    ///
    /// # Errors
    /// Store failures.
    async fn reserve_to_prepare(
        &self,
        retry_delay: std::time::Duration,
        fresh_after: DateTime<Utc>,
        heard_after: DateTime<Utc>,
    ) -> Result<Option<Box<dyn TaskReservation>>, RepoError>;

    /// A task that is no longer queued (superseded, taken by a worker, finished)
    /// but still carries a preparation, held with its MR; `None` when there is none.
    ///
    /// # Errors
    /// Store failures.
    async fn reserve_orphaned_preparation(&self) -> Result<Option<Orphaned>, RepoError>;

    /// Runners heard from since `heard_after`, their free capacity, and the queued
    /// tasks prepared since `fresh_after`.
    ///
    /// # Errors
    /// Store failures.
    async fn preparation_budget(
        &self,
        heard_after: DateTime<Utc>,
        fresh_after: DateTime<Utc>,
    ) -> Result<PreparationBudget, RepoError>;
}
