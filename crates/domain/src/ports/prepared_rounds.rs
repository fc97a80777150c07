//! Rounds prepared ahead of a runner's claim: what is stored with a queued task,
//! the hold a preparer takes on it while it prepares, and what a claim returns.
//! A preparation is kept in `review_tasks.assignment` beside the round it began,
//! so a claim hands it out without asking the platform.

use super::RepoError;
use crate::model::ReviewTask;
use crate::model::runner::{RunnerAssignment, RunnerRule};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// What a claim hands a runner for a prepared task, less what is resolved when it
/// is claimed (the clone credentials and the AI configuration with its key, which
/// are never stored with the task).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreparedPayload {
    pub mr_title: String,
    pub mr_description: Option<String>,
    pub source_branch: String,
    pub target_branch: String,
    pub system_prompt: String,
    pub rules: Vec<RunnerRule>,
    /// The stored AI configuration the round was prepared with (none: the default).
    pub ai_config_id: Option<Uuid>,
}

/// A preparation as stored with its task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Preparation {
    /// When it was made: past `RUNNER_PREPARED_MAX_AGE_SECS` it is made again, and
    /// claims no longer hand it out.
    pub at: DateTime<Utc>,
    /// The task's attempts when it was made: any attempt since (a worker's, a
    /// claim's) voids it, whatever became of that attempt.
    pub attempts: i32,
    /// `None`: the task is not prepared ahead (its head was reviewed, there is
    /// nothing to review, or preparing failed); a claim prepares it inline, as
    /// before, and settles it.
    pub payload: Option<PreparedPayload>,
}

/// A task prepared ahead, as a claim took it.
#[derive(Debug, Clone)]
pub struct PreparedRound {
    pub assignment: RunnerAssignment,
    pub payload: PreparedPayload,
}

/// One task a claim took, prepared ahead or not.
#[derive(Debug, Clone)]
pub struct ClaimedRow {
    pub task: ReviewTask,
    pub prepared: Option<PreparedRound>,
}

/// What a claim came to.
#[derive(Debug, Clone)]
pub enum ClaimBatch {
    /// The runner was registered with another API key: nothing was taken.
    WrongKey,
    Claimed(Vec<ClaimedRow>),
    /// Nothing was taken: the tasks next in line are held (their MRs locked, most
    /// often by a preparer preparing them). Claiming again shortly finds them ready.
    Held,
}

/// How many rounds the preparers should keep ready.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PreparationBudget {
    /// Runners online (heard from recently).
    pub runners_online: u64,
    /// Their free capacity, summed.
    pub free_capacity: u64,
    /// Queued tasks prepared and still fresh.
    pub prepared: u64,
}

/// A hold on one task and its MR while a preparer works on it: runner claims skip
/// the MR and a server worker's attempt on it waits, so no two rounds of one MR are
/// begun at once. Dropped without `save`, `forget` or `release`, it is let go too
/// (the store's session ends).
#[async_trait]
pub trait TaskReservation: Send + Sync {
    fn task(&self) -> &ReviewTask;

    /// Stores the preparation (and the round it began, if any) if the task is still
    /// queued at the same attempts, then lets the MR go. Whether it was stored (not:
    /// the task was superseded, taken or finished meanwhile).
    ///
    /// # Errors
    /// Store failures (the hold is let go all the same).
    async fn save(
        self: Box<Self>,
        preparation: &Preparation,
        assignment: Option<&RunnerAssignment>,
    ) -> Result<bool, RepoError>;

    /// Forgets the task's preparation (its round was ended), then lets the MR go.
    ///
    /// # Errors
    /// Store failures (the hold is let go all the same).
    async fn forget(self: Box<Self>) -> Result<(), RepoError>;

    /// Lets the MR go, storing nothing.
    async fn release(self: Box<Self>);
}

/// A task that will not run the round prepared for it (superseded by a newer head,
/// or finished another way), held as [`TaskReservation`] holds one.
pub struct Orphaned {
    pub reservation: Box<dyn TaskReservation>,
    /// The round prepared for it, if it began one.
    pub assignment: Option<RunnerAssignment>,
    /// Whether that round is still the MR's open round, and no attempt on the MR is
    /// under way: only then is it to be ended (else a newer round replaced it, or
    /// will).
    pub round_open: bool,
}
