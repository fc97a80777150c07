//! Rounds prepared ahead of claims, in memory, as `repos/runners/prepared.rs` keeps
//! them: a preparation per task (`Tables::preparations`), the MRs preparers hold
//! (`Tables::preparing`, PostgreSQL's session advisory locks, which claims skip),
//! and claims that take prepared tasks first.

use super::{claim_task, to_i32};
use crate::memory::MemoryStore;
use crate::memory::Tables;
use crate::memory::tables::TaskRow;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::runner::{RunnerAssignment, RunnerStatus};
use reviewd_domain::model::{ReviewTask, TaskStatus};
use reviewd_domain::ports::{
    ClaimBatch, ClaimedRow, Orphaned, Preparation, PreparationBudget, PreparedRound, RepoError,
    TaskReservation,
};
use std::collections::HashSet;
use uuid::Uuid;

type Mr = (ProjectId, i64);

fn mr_of(row: &TaskRow) -> Mr {
    (row.task.project_id, row.task.mr_iid)
}

impl Tables {
    /// The task's preparation if it was made at its attempts after `fresh_after`.
    fn fresh_preparation(&self, row: &TaskRow, fresh_after: DateTime<Utc>) -> Option<&Preparation> {
        self.preparations
            .get(&row.task.id)
            .filter(|p| p.attempts == row.task.attempts && p.at > fresh_after)
    }

    /// The queued task's prepared round, if it is fresh and still the MR's open round.
    fn ready_round(&self, row: &TaskRow, fresh_after: DateTime<Utc>) -> Option<PreparedRound> {
        let payload = self.fresh_preparation(row, fresh_after)?.payload.clone()?;
        let assignment = row.assignment.clone()?;
        let open = self
            .rounds
            .iter()
            .any(|r| r.round.id == assignment.round_id && r.round.completed_at.is_none());
        open.then_some(PreparedRound {
            assignment,
            payload,
        })
    }

    pub(super) fn preparation_budget(
        &self,
        heard_after: DateTime<Utc>,
        fresh_after: DateTime<Utc>,
    ) -> PreparationBudget {
        let live: Vec<_> = self
            .runners
            .iter()
            .map(|r| &r.runner)
            .filter(|r| r.status != RunnerStatus::Offline)
            .filter(|r| r.last_heartbeat.is_some_and(|h| h > heard_after))
            .collect();
        let free = live
            .iter()
            .map(|r| {
                u64::try_from(r.max_concurrent_jobs)
                    .unwrap_or(0)
                    .saturating_sub(self.held_count(&r.id) as u64)
            })
            .sum();
        let prepared = self
            .tasks
            .iter()
            .filter(|r| r.task.status == TaskStatus::Queued)
            .filter(|r| {
                self.fresh_preparation(r, fresh_after)
                    .is_some_and(|p| p.payload.is_some())
            })
            .count();
        PreparationBudget {
            runners_online: live.len() as u64,
            free_capacity: free,
            prepared: prepared as u64,
        }
    }

    fn wants_preparing(
        &self,
        row: &TaskRow,
        retry_since: DateTime<Utc>,
        fresh_after: DateTime<Utc>,
        heard_after: DateTime<Utc>,
    ) -> bool {
        let mr = mr_of(row);
        row.task.status == TaskStatus::Queued
            && row.task.conversation_id.is_none()
            && (row.task.error_message.is_none() || row.task.updated_at <= retry_since)
            && self.fresh_preparation(row, fresh_after).is_none()
            && !self.preparing.contains(&mr)
            && self.runners.iter().map(|r| &r.runner).any(|r| {
                r.status != RunnerStatus::Offline
                    && r.last_heartbeat.is_some_and(|h| h > heard_after)
                    && row.required_tags.iter().all(|t| r.tags.contains(t))
            })
            && !self.tasks.iter().any(|o| {
                o.task.id != row.task.id
                    && mr_of(o) == mr
                    && o.task.conversation_id.is_none()
                    && (o.task.status == TaskStatus::Processing
                        || (o.task.status == TaskStatus::Queued
                            && self.fresh_preparation(o, fresh_after).is_some()))
            })
    }
}

impl MemoryStore {
    pub(super) fn claim_prepared_first(
        &self,
        runner_id: &str,
        caller_key: Uuid,
        limit: u32,
        lease: std::time::Duration,
        retry_since: DateTime<Utc>,
        fresh_after: Option<DateTime<Utc>>,
    ) -> Result<ClaimBatch, RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let row = t.runner_mut(runner_id)?;
        if row.api_key_id.is_some_and(|k| k != caller_key) {
            return Ok(ClaimBatch::WrongKey);
        }
        let runner = row.runner.clone();
        let take = usize::try_from(runner.max_concurrent_jobs)
            .unwrap_or(0)
            .saturating_sub(t.held_count(runner_id))
            .min(usize::try_from(limit).unwrap_or(usize::MAX));
        let mut ready: Vec<(&TaskRow, PreparedRound)> = t
            .tasks
            .iter()
            .filter(|r| r.task.status == TaskStatus::Queued && r.task.conversation_id.is_none())
            .filter(|r| r.required_tags.iter().all(|tag| runner.tags.contains(tag)))
            .filter(|r| !t.mr_busy(r.task.project_id, r.task.mr_iid))
            .filter(|r| !t.preparing.contains(&mr_of(r)))
            .filter_map(|r| Some((r, t.ready_round(r, fresh_after?)?)))
            .collect();
        ready.sort_by_key(|(r, _)| r.task.created_at);
        let mut seen = HashSet::new();
        let mut chosen: Vec<(Uuid, Option<PreparedRound>)> = ready
            .into_iter()
            .filter(|(r, _)| seen.insert(mr_of(r)))
            .take(take)
            .map(|(r, p)| (r.task.id, Some(p)))
            .collect();
        if chosen.is_empty() {
            chosen = t
                .claim_candidates(&runner.tags, take, retry_since)
                .into_iter()
                .map(|id| (id, None))
                .collect();
        }
        let held = t.tasks.iter().any(|r| {
            r.task.status == TaskStatus::Queued
                && t.preparing.contains(&mr_of(r))
                && r.required_tags.iter().all(|tag| runner.tags.contains(tag))
        });
        if chosen.is_empty() && take > 0 && held {
            return Ok(ClaimBatch::Held);
        }
        let mut claimed = Vec::new();
        for (id, prepared) in chosen {
            t.preparations.remove(&id);
            let row = t.task_mut(id)?;
            claim_task(row, runner_id, now, lease);
            match &prepared {
                Some(p) => row.task.head_sha = Some(p.assignment.head_sha.clone()),
                None => row.assignment = None,
            }
            claimed.push(ClaimedRow {
                task: row.task.clone(),
                prepared,
            });
        }
        if !claimed.is_empty() {
            let row = t.runner_mut(runner_id)?;
            let jobs = row.runner.current_jobs + to_i32(claimed.len());
            row.runner.current_jobs = jobs;
            row.runner.last_heartbeat = Some(now);
            row.runner.status = if jobs >= row.runner.max_concurrent_jobs {
                RunnerStatus::Busy
            } else {
                RunnerStatus::Online
            };
            row.updated_at = now;
        }
        claimed.sort_by_key(|c| c.task.created_at);
        Ok(ClaimBatch::Claimed(claimed))
    }

    pub(super) fn hold_to_prepare(
        &self,
        retry_since: DateTime<Utc>,
        fresh_after: DateTime<Utc>,
        heard_after: DateTime<Utc>,
    ) -> Option<MemoryReservation> {
        let mut t = self.tables();
        let task = t
            .tasks
            .iter()
            .filter(|r| t.wants_preparing(r, retry_since, fresh_after, heard_after))
            // Never prepared first, then stale preparations, as the Postgres store.
            .min_by_key(|r| (t.preparations.contains_key(&r.task.id), r.task.created_at))?
            .task
            .clone();
        t.preparing.insert((task.project_id, task.mr_iid));
        Some(MemoryReservation {
            store: self.clone(),
            task,
            held: true,
        })
    }

    pub(super) fn hold_orphaned(&self) -> Option<Orphaned> {
        let mut t = self.tables();
        let row = t
            .tasks
            .iter()
            .filter(|r| r.task.status != TaskStatus::Queued)
            .filter(|r| t.preparations.contains_key(&r.task.id))
            .filter(|r| !t.preparing.contains(&mr_of(r)))
            .min_by_key(|r| r.task.created_at)?;
        let assignment: Option<RunnerAssignment> = row.assignment.clone();
        let round_open = assignment.as_ref().is_some_and(|a| {
            t.rounds
                .iter()
                .any(|r| r.round.id == a.round_id && r.round.completed_at.is_none())
        }) && !t.mr_busy(row.task.project_id, row.task.mr_iid);
        let task = row.task.clone();
        t.preparing.insert((task.project_id, task.mr_iid));
        Some(Orphaned {
            reservation: Box::new(MemoryReservation {
                store: self.clone(),
                task,
                held: true,
            }),
            assignment,
            round_open,
        })
    }
}

/// A task and its MR held by a preparer, let go when it ends or is dropped.
pub(crate) struct MemoryReservation {
    store: MemoryStore,
    task: ReviewTask,
    held: bool,
}

impl MemoryReservation {
    fn let_go(&mut self, t: &mut Tables) {
        if std::mem::take(&mut self.held) {
            t.preparing
                .remove(&(self.task.project_id, self.task.mr_iid));
        }
    }
}

impl Drop for MemoryReservation {
    fn drop(&mut self) {
        if self.held {
            let store = self.store.clone();
            self.let_go(&mut store.tables());
        }
    }
}

#[async_trait]
impl TaskReservation for MemoryReservation {
    fn task(&self) -> &ReviewTask {
        &self.task
    }

    async fn save(
        mut self: Box<Self>,
        preparation: &Preparation,
        assignment: Option<&RunnerAssignment>,
    ) -> Result<bool, RepoError> {
        let store = self.store.clone();
        let mut t = store.tables();
        self.let_go(&mut t);
        let Ok(row) = t.task_mut(self.task.id) else {
            return Ok(false);
        };
        let queued =
            row.task.status == TaskStatus::Queued && row.task.attempts == preparation.attempts;
        // A superseded task keeps its round, for the orphan pass to end.
        if queued || (assignment.is_some() && row.task.status == TaskStatus::Superseded) {
            row.assignment = assignment.cloned();
            t.preparations.insert(self.task.id, preparation.clone());
        }
        Ok(queued)
    }

    async fn forget(mut self: Box<Self>) -> Result<(), RepoError> {
        let store = self.store.clone();
        let mut t = store.tables();
        self.let_go(&mut t);
        let id = self.task.id;
        if t.tasks
            .iter()
            .any(|r| r.task.id == id && r.task.status != TaskStatus::Queued)
            && t.preparations.remove(&id).is_some()
        {
            t.task_mut(id)?.assignment = None;
        }
        Ok(())
    }

    async fn release(mut self: Box<Self>) {
        let store = self.store.clone();
        self.let_go(&mut store.tables());
    }
}
