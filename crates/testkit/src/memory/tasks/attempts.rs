//! A server worker's attempts in memory, as `review_tasks` fences them by the
//! worker's name: one live attempt per MR (a live heartbeat, or a runner's hold),
//! a worker resuming its own task, and heartbeats and outcomes that count only
//! while the worker still holds the task.

use super::{before, finish, is_active};
use crate::memory::Tables;
use crate::memory::tables::TaskRow;
use chrono::{DateTime, Utc};
use reviewd_domain::model::{ReviewTask, TaskStatus};
use reviewd_domain::ports::{AttemptEnd, AttemptStart, RepoError};
use uuid::Uuid;

/// Whether `worker`'s attempt holds the row: `processing` (not a runner's result
/// being concluded), held by `worker`, and not by a runner.
fn held_by(row: &TaskRow, worker: &str) -> bool {
    row.task.status == TaskStatus::Processing
        && !row.in_progress
        && row.runner_id.is_none()
        && row.task.worker_id.as_deref() == Some(worker)
}

impl Tables {
    /// Whether another attempt on the task's MR holds it for `worker`: one whose
    /// heartbeat is after `live_since`, or one a runner holds (its lease and the
    /// sweep decide). The task itself held by `worker` is its own work, resumed.
    fn attempt_live(&self, task: &ReviewTask, worker: &str, live_since: DateTime<Utc>) -> bool {
        // Only reviews are one at a time per MR: an answer neither waits nor blocks.
        task.conversation_id.is_none()
            && self.tasks.iter().any(|r| {
                r.task.project_id == task.project_id
                    && r.task.mr_iid == task.mr_iid
                    && r.task.conversation_id.is_none()
                    && r.task.status == TaskStatus::Processing
                    && (r.heartbeat_at.is_some_and(|h| h > live_since) || r.runner_id.is_some())
                    && !(r.task.id == task.id
                        && r.runner_id.is_none()
                        && r.task.worker_id.as_deref() == Some(worker))
            })
    }

    pub(super) fn begin_attempt(
        &mut self,
        id: Uuid,
        worker: &str,
        lease: std::time::Duration,
        now: DateTime<Utc>,
    ) -> Result<AttemptStart, RepoError> {
        let Ok(row) = self.task_mut(id) else {
            return Ok(AttemptStart::NotRunnable);
        };
        let task = row.task.clone();
        if self.attempt_live(&task, worker, before(now, lease)) {
            return Ok(AttemptStart::Busy);
        }
        let row = self.task_mut(id)?;
        // A task a runner holds is the runner's: never started, nor given up, here.
        if !is_active(row.task.status) || row.runner_id.is_some() {
            return Ok(AttemptStart::NotRunnable);
        }
        if row.task.attempts >= row.task.max_attempts {
            row.task.error_message = Some("gave up after the maximum number of attempts".into());
            finish(row, TaskStatus::Failed, now);
            return Ok(AttemptStart::GaveUp(row.task.clone()));
        }
        row.task.status = TaskStatus::Processing;
        row.in_progress = false;
        row.task.attempts += 1;
        row.task.worker_id = Some(worker.to_owned());
        row.task.started_at = Some(now);
        row.task.updated_at = now;
        row.heartbeat_at = Some(now);
        Ok(AttemptStart::Started(row.task.clone()))
    }

    pub(super) fn renew_attempt(&mut self, id: Uuid, worker: &str, now: DateTime<Utc>) -> bool {
        match self.task_mut(id) {
            Ok(row) if held_by(row, worker) => {
                row.heartbeat_at = Some(now);
                row.task.updated_at = now;
                true
            }
            _ => false,
        }
    }

    /// The effects of `complete`, `requeue` and `fail`, only on a task `worker`
    /// holds. The worker's name stays on a finished task (who did it), and is
    /// cleared on a requeued one: whoever starts it next, it is no one's own work.
    pub(super) fn finish_attempt(
        &mut self,
        id: Uuid,
        worker: &str,
        end: AttemptEnd<'_>,
        now: DateTime<Utc>,
    ) -> Result<bool, RepoError> {
        if !self.task_mut(id).is_ok_and(|row| held_by(row, worker)) {
            return Ok(false);
        }
        if let AttemptEnd::Completed { review_id } = end {
            // The foreign key, checked only on the row the update touches.
            self.check_review(review_id)?;
        }
        let row = self.task_mut(id)?;
        match end {
            AttemptEnd::Completed { review_id } => {
                row.task.review_id = review_id;
                row.task.error_message = None;
                finish(row, TaskStatus::Completed, now);
            }
            AttemptEnd::Requeued { error } => {
                row.task.status = TaskStatus::Queued;
                row.task.error_message = Some(error.to_owned());
                row.task.worker_id = None;
                row.task.updated_at = now;
                row.runner_phase = None;
                row.lease_expires_at = None;
                row.assignment = None;
            }
            AttemptEnd::Failed { error } => {
                row.task.error_message = Some(error.to_owned());
                finish(row, TaskStatus::Failed, now);
            }
        }
        Ok(true)
    }

    pub(super) fn unfinished(&self, after: Option<Uuid>, limit: u32) -> Vec<Uuid> {
        let mut ids: Vec<Uuid> = self
            .tasks
            .iter()
            .filter(|r| {
                r.task.status == TaskStatus::Queued
                    || (r.task.status == TaskStatus::Processing
                        && !r.in_progress
                        && r.runner_id.is_none())
            })
            .map(|r| r.task.id)
            .filter(|id| after.is_none_or(|after| *id > after))
            .collect();
        // PostgreSQL orders uuids by their bytes, as `Uuid`'s `Ord` does.
        ids.sort_unstable();
        ids.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        ids
    }
}
