//! The preparer: rounds begun ahead of runners' claims, so a claim takes a task in
//! one short transaction and no platform call. Each replica runs passes of it (the
//! app's loop); the store's hold on a task's MR keeps two preparers, a claim and a
//! worker's attempt from beginning two rounds of one MR at once.
//!
//! It keeps about twice the online runners' free capacity prepared (at least
//! [`MIN_AHEAD`] while a runner is online). A preparation lives until a claim takes
//! it, it is older than `RUNNER_PREPARED_MAX_AGE_SECS` (then made again), or its
//! task stops being queued: a task superseded by a newer head (or run by a worker)
//! leaves its round open, and the next pass ends it, unless a newer round of the MR
//! replaced it already.

use super::RunnerService;
use crate::model::TaskStatus;
use crate::ports::{Orphaned, Preparation, PreparedPayload, TaskReservation};
use crate::services::ServiceError;
use crate::services::review_engine::Assigned;
use chrono::{DateTime, Utc};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Rounds kept prepared while any runner is online, whatever its free capacity.
pub const MIN_AHEAD: u64 = 4;
/// Most rounds one pass prepares, so a pass ends and the budget is read again.
const MAX_PER_PASS: u64 = 256;
/// Most orphaned preparations one pass ends.
const MAX_ORPHANS_PER_PASS: usize = 64;

/// What one pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PrepareReport {
    /// Rounds prepared and stored.
    pub prepared: usize,
    /// Tasks looked at and left to be prepared by their claim (already reviewed,
    /// nothing to review, a failure) or no longer queued when stored.
    pub left: usize,
    /// Rounds of tasks that will not run them, ended.
    pub ended: usize,
    /// Whether any runner was online: without one, nothing is prepared, and the
    /// loop can wait longer before it looks again.
    pub runners_online: bool,
}

impl PrepareReport {
    /// Whether the pass did anything (the loop comes back sooner when it did).
    #[must_use]
    pub fn busy(&self) -> bool {
        self.prepared + self.left + self.ended > 0
    }
}

/// What became of one reserved task.
enum Outcome {
    Prepared,
    Left,
}

impl RunnerService {
    /// One pass of the preparer: ends the rounds of tasks that will not run them,
    /// then prepares the oldest queued tasks up to the budget.
    ///
    /// # Errors
    /// Store failures.
    pub async fn prepare_ahead(&self) -> Result<PrepareReport, ServiceError> {
        let mut report = PrepareReport::default();
        if self.settings.prepared_max_age.is_zero() {
            return Ok(report);
        }
        report.ended = self.end_orphaned().await?;
        let heard_after = self.ago(self.settings.heartbeat_timeout);
        let fresh_after = self.ago(self.settings.prepared_max_age);
        let budget = self
            .runners
            .preparation_budget(heard_after, fresh_after)
            .await?;
        report.runners_online = budget.runners_online > 0;
        if !report.runners_online {
            return Ok(report);
        }
        let wanted = budget.free_capacity.saturating_mul(2).max(MIN_AHEAD);
        let missing =
            usize::try_from(wanted.saturating_sub(budget.prepared).min(MAX_PER_PASS)).unwrap_or(0);
        if missing == 0 {
            return Ok(report);
        }
        let (prepared, left) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let lanes = (0..self.settings.prepare_concurrency.clamp(1, missing)).map(|_| async {
            // Each lane reserves the next task while the pass still misses some.
            while prepared.load(Ordering::Relaxed) + left.load(Ordering::Relaxed) < missing {
                let reserved = self
                    .runners
                    .reserve_to_prepare(self.settings.retry_delay, fresh_after, heard_after)
                    .await?;
                let Some(reservation) = reserved else {
                    break;
                };
                match self.prepare_one(reservation).await? {
                    Outcome::Prepared => prepared.fetch_add(1, Ordering::Relaxed),
                    Outcome::Left => left.fetch_add(1, Ordering::Relaxed),
                };
            }
            Ok::<_, ServiceError>(())
        });
        for lane in futures_util::future::join_all(lanes).await {
            lane?;
        }
        report.prepared = prepared.into_inner();
        report.left = left.into_inner();
        if report.busy() {
            tracing::debug!(
                prepared = report.prepared,
                left = report.left,
                ended = report.ended,
                "runners.prepared_ahead"
            );
        }
        Ok(report)
    }

    /// Begins the reserved task's round and stores it with the task. A task that
    /// needs no round, or whose preparation failed, is marked so (the preparer
    /// leaves it until the mark is stale) and left to its claim, which settles it
    /// as before.
    async fn prepare_one(
        &self,
        reservation: Box<dyn TaskReservation>,
    ) -> Result<Outcome, ServiceError> {
        let task = reservation.task().clone();
        let at: DateTime<Utc> = self.clock.now();
        let (payload, assignment) = match self.engine.assign(&task).await {
            Ok(Assigned::Round(round)) => (
                Some(PreparedPayload {
                    mr_title: round.mr.title.clone(),
                    mr_description: round.mr.description.clone(),
                    source_branch: round.mr.source_branch.clone(),
                    target_branch: round.mr.target_branch.clone(),
                    system_prompt: round.system_prompt.clone(),
                    rules: round.rules.clone(),
                    ai_config_id: round.ai_config_id,
                }),
                Some(round.assignment),
            ),
            Ok(Assigned::AlreadyReviewed(_) | Assigned::NotReviewed) => (None, None),
            Err(f) => {
                tracing::info!(task.id = %task.id, error = %f.message, transient = f.transient, "runner.prepare_ahead_failed");
                (None, None)
            }
        };
        let prepared = payload.is_some();
        let preparation = Preparation {
            at,
            attempts: task.attempts,
            payload,
        };
        // Not stored as prepared: the task was superseded, taken or finished while
        // its round was begun. The store keeps the round on it all the same, so the
        // next pass ends it.
        let stored = reservation.save(&preparation, assignment.as_ref()).await?;
        Ok(if stored && prepared {
            Outcome::Prepared
        } else {
            Outcome::Left
        })
    }

    /// Ends the open rounds of tasks that were prepared but will not run them
    /// (superseded by a newer head, or run or finished another way), unless the
    /// MR's newer round replaced them already. How many were ended.
    async fn end_orphaned(&self) -> Result<usize, ServiceError> {
        let mut ended = 0;
        for _ in 0..MAX_ORPHANS_PER_PASS {
            let Some(orphan) = self.runners.reserve_orphaned_preparation().await? else {
                break;
            };
            let Orphaned {
                reservation,
                assignment,
                round_open,
            } = orphan;
            if let (Some(assignment), true) = (&assignment, round_open) {
                let message = match reservation.task().status {
                    TaskStatus::Superseded => "superseded by a newer head before a runner took it",
                    _ => "its task ended before a runner took it",
                };
                if let Err(e) = self.engine.fail_runner_round(assignment, message).await {
                    // Kept: the next pass tries again.
                    tracing::warn!(task.id = %reservation.task().id, error = %e, "runner.prepared_round_not_ended");
                    reservation.release().await;
                    break;
                }
                tracing::info!(task.id = %reservation.task().id, review.id = %assignment.review_id, "runner.prepared_round_ended");
                ended += 1;
            }
            reservation.forget().await?;
        }
        Ok(ended)
    }
}
