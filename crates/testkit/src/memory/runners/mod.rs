//! Runners and the tasks they hold, in memory: claims within capacity and one
//! attempt per MR, every transition of a held task guarded by its holder, leases
//! that run out on the store's clock.

use super::MemoryStore;
use super::Tables;
use super::tables::{RunnerRow, TaskRow};
use super::tasks::before;

mod prepared;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use reviewd_domain::model::review_views::TaskLogLine;
use reviewd_domain::model::runner::{
    Runner, RunnerAssignment, RunnerOutcome, RunnerPhase, RunnerRegistration, RunnerStatus,
};
use reviewd_domain::model::{ReviewTask, TaskStatus};
use reviewd_domain::ports::{
    ClaimBatch, HeldTask, Orphaned, PreparationBudget, RepoError, RunnerRepository, SweepReport,
    TaskReservation,
};
use std::collections::HashSet;
use uuid::Uuid;

/// `processing` in SQL terms: a runner's attempt under way, its result not in yet.
fn processing(row: &TaskRow) -> bool {
    row.task.status == TaskStatus::Processing && !row.in_progress
}

fn held_by(row: &TaskRow, runner_id: &str) -> bool {
    processing(row) && row.runner_id.as_deref() == Some(runner_id)
}

fn to_i32(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

impl Tables {
    fn runner_mut(&mut self, id: &str) -> Result<&mut RunnerRow, RepoError> {
        self.runners
            .iter_mut()
            .find(|r| r.runner.id == id)
            .ok_or(RepoError::NotFound)
    }

    /// Tasks the runner holds, its result in or not: what its capacity counts.
    fn held_count(&self, runner_id: &str) -> usize {
        self.tasks
            .iter()
            .filter(|r| {
                r.task.status == TaskStatus::Processing && r.runner_id.as_deref() == Some(runner_id)
            })
            .count()
    }

    fn claimable(&self, row: &TaskRow, tags: &[String], retry_since: DateTime<Utc>) -> bool {
        row.task.status == TaskStatus::Queued
            && row.task.conversation_id.is_none()
            && (row.task.error_message.is_none() || row.task.updated_at <= retry_since)
            && row.required_tags.iter().all(|t| tags.contains(t))
            && !self.mr_busy(row.task.project_id, row.task.mr_iid)
            && !self
                .preparing
                .contains(&(row.task.project_id, row.task.mr_iid))
    }

    /// The oldest `take` claimable tasks, then one per MR (as the SQL does).
    fn claim_candidates(
        &self,
        tags: &[String],
        take: usize,
        retry_since: DateTime<Utc>,
    ) -> Vec<Uuid> {
        let mut queued: Vec<&TaskRow> = self
            .tasks
            .iter()
            .filter(|r| self.claimable(r, tags, retry_since))
            .collect();
        queued.sort_by_key(|r| r.task.created_at);
        let mut seen = HashSet::new();
        queued
            .into_iter()
            .take(take)
            .filter(|r| seen.insert((r.task.project_id, r.task.mr_iid)))
            .map(|r| r.task.id)
            .collect()
    }

    /// Gives the `processing` tasks of offline runners (of `runner` only, when
    /// given) back to the queue, or fails those out of attempts; with `expired`,
    /// also any runner-held task past its lease.
    fn release_tasks_of_offline(
        &mut self,
        runner: Option<&str>,
        reason: &str,
        expired: bool,
        now: DateTime<Utc>,
    ) -> SweepReport {
        let offline: HashSet<String> = self
            .runners
            .iter()
            .filter(|r| r.runner.status == RunnerStatus::Offline)
            .filter(|r| runner.is_none_or(|id| r.runner.id == id))
            .map(|r| r.runner.id.clone())
            .collect();
        let mut report = SweepReport::default();
        for row in &mut self.tasks {
            let of_offline = processing(row)
                && row
                    .runner_id
                    .as_ref()
                    .is_some_and(|id| offline.contains(id));
            let lapsed = expired
                && row.task.status == TaskStatus::Processing
                && row.runner_id.is_some()
                && row.lease_expires_at.is_some_and(|l| l < now);
            if of_offline || lapsed {
                give_back(row, reason, now, &mut report);
            }
        }
        report
    }
}

/// Back to the queue with its attempts left, failed without.
fn give_back(row: &mut TaskRow, reason: &str, now: DateTime<Utc>, report: &mut SweepReport) {
    let retry = row.task.attempts < row.task.max_attempts;
    row.task.error_message = Some(reason.to_owned());
    row.task.updated_at = now;
    row.runner_id = None;
    row.runner_phase = None;
    row.lease_expires_at = None;
    row.assignment = None;
    if retry {
        row.task.status = TaskStatus::Queued;
        row.stream_message_id = None;
        row.task.completed_at = None;
        report.requeued.push(row.task.id);
    } else {
        row.task.status = TaskStatus::Failed;
        row.dedup_key = None;
        row.task.completed_at = Some(now);
        report.failed.push(row.task.id);
    }
}

fn claim_task(row: &mut TaskRow, runner_id: &str, now: DateTime<Utc>, lease: std::time::Duration) {
    row.task.status = TaskStatus::Processing;
    row.in_progress = false;
    row.task.attempts += 1;
    row.task.started_at.get_or_insert(now);
    row.task.updated_at = now;
    row.runner_id = Some(runner_id.to_owned());
    row.runner_phase = None;
    row.claimed_at = Some(now);
    row.heartbeat_at = Some(now);
    row.lease_expires_at = chrono::Duration::from_std(lease)
        .ok()
        .and_then(|l| now.checked_add_signed(l));
}

fn new_runner(r: &RunnerRegistration, now: DateTime<Utc>) -> RunnerRow {
    RunnerRow {
        runner: Runner {
            id: r.id.clone(),
            name: String::new(),
            version: String::new(),
            status: RunnerStatus::Online,
            current_jobs: 0,
            max_concurrent_jobs: 0,
            total_jobs_completed: 0,
            total_jobs_failed: 0,
            tags: Vec::new(),
            last_heartbeat: None,
            registered_at: now,
        },
        api_key_id: None,
        updated_at: now,
    }
}

#[async_trait]
impl RunnerRepository for MemoryStore {
    async fn upsert(&self, r: &RunnerRegistration) -> Result<Runner, RepoError> {
        let now = self.now();
        let mut t = self.tables();
        if t.runner_mut(&r.id).is_err() {
            t.runners.push(new_runner(r, now));
        }
        let row = t.runner_mut(&r.id)?;
        row.runner.name.clone_from(&r.name);
        row.runner.version.clone_from(&r.version);
        row.runner.status = RunnerStatus::Online;
        row.runner.max_concurrent_jobs = r.max_concurrent_jobs;
        row.runner.tags.clone_from(&r.tags);
        row.runner.last_heartbeat = Some(now);
        row.api_key_id = r.api_key_id;
        row.updated_at = now;
        Ok(row.runner.clone())
    }

    async fn heartbeat(
        &self,
        id: &str,
        status: RunnerStatus,
        current_jobs: i32,
    ) -> Result<Runner, RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let row = t.runner_mut(id)?;
        row.runner.status = status;
        row.runner.current_jobs = current_jobs;
        row.runner.last_heartbeat = Some(now);
        row.updated_at = now;
        let runner = row.runner.clone();
        // A heartbeat keeps the runner's tasks alive too.
        for task in t.tasks.iter_mut().filter(|r| held_by(r, id)) {
            task.heartbeat_at = Some(now);
            task.task.updated_at = now;
        }
        Ok(runner)
    }

    async fn get(&self, id: &str) -> Result<Runner, RepoError> {
        Ok(self.tables().runner_mut(id)?.runner.clone())
    }

    async fn key_of(&self, id: &str) -> Result<Option<Uuid>, RepoError> {
        Ok(self.tables().runner_mut(id)?.api_key_id)
    }

    async fn list(&self) -> Result<Vec<Runner>, RepoError> {
        let mut all: Vec<Runner> = self
            .tables()
            .runners
            .iter()
            .map(|r| r.runner.clone())
            .collect();
        // Latest heartbeat first, never-seen last (`None` sorts first, reversed here).
        all.sort_by(|a, b| (b.last_heartbeat, &a.id).cmp(&(a.last_heartbeat, &b.id)));
        Ok(all)
    }

    async fn deregister(&self, id: &str) -> Result<SweepReport, RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let row = t.runner_mut(id)?;
        row.runner.status = RunnerStatus::Offline;
        row.runner.current_jobs = 0;
        row.updated_at = now;
        let mut report =
            t.release_tasks_of_offline(Some(id), "the runner went offline", false, now);
        report.runners_offline = 1;
        Ok(report)
    }

    async fn claim(
        &self,
        runner_id: &str,
        limit: u32,
        lease: std::time::Duration,
        retry_delay: std::time::Duration,
    ) -> Result<Vec<ReviewTask>, RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let runner = t.runner_mut(runner_id)?.runner.clone();
        let capacity = usize::try_from(runner.max_concurrent_jobs).unwrap_or(0);
        let take = capacity
            .saturating_sub(t.held_count(runner_id))
            .min(usize::try_from(limit).unwrap_or(usize::MAX));
        let chosen = t.claim_candidates(&runner.tags, take, before(now, retry_delay));
        let mut claimed = Vec::new();
        for row in t.tasks.iter_mut().filter(|r| chosen.contains(&r.task.id)) {
            claim_task(row, runner_id, now, lease);
            claimed.push(row.task.clone());
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
        claimed.sort_by_key(|task| task.created_at);
        Ok(claimed)
    }

    async fn save_assignment(
        &self,
        task_id: Uuid,
        assignment: &RunnerAssignment,
    ) -> Result<(), RepoError> {
        let now = self.now();
        let mut t = self.tables();
        // An unknown task changes nothing, as the SQL update of no row does.
        if t.task_mut(task_id).is_err() {
            return Ok(());
        }
        t.check_review(Some(assignment.review_id))?;
        let row = t.task_mut(task_id)?;
        row.assignment = Some(assignment.clone());
        row.task.review_id = Some(assignment.review_id);
        row.task.head_sha = Some(assignment.head_sha.clone());
        row.task.updated_at = now;
        Ok(())
    }

    async fn held(&self, task_id: Uuid) -> Result<HeldTask, RepoError> {
        let t = self.tables();
        let row = t
            .tasks
            .iter()
            .find(|r| r.task.id == task_id && processing(r) && r.runner_id.is_some())
            .ok_or(RepoError::NotFound)?;
        Ok(HeldTask {
            task: row.task.clone(),
            runner_id: row.runner_id.clone().unwrap_or_default(),
            assignment: row.assignment.clone(),
        })
    }

    async fn set_phase(
        &self,
        task_id: Uuid,
        runner_id: &str,
        phase: RunnerPhase,
    ) -> Result<(), RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let row = t.task_mut(task_id)?;
        if !held_by(row, runner_id) {
            return Err(RepoError::NotFound);
        }
        row.runner_phase = Some(phase);
        row.heartbeat_at = Some(now);
        row.task.updated_at = now;
        Ok(())
    }

    async fn append_logs(&self, task_id: Uuid, lines: &[String]) -> Result<u64, RepoError> {
        let now = self.now();
        let mut t = self.tables();
        t.task_mut(task_id)?;
        let start = t
            .task_logs
            .iter()
            .filter(|l| l.task_id == task_id)
            .map(|l| l.line_no)
            .max()
            .unwrap_or(0);
        t.task_logs
            .extend(lines.iter().enumerate().map(|(i, line)| TaskLogLine {
                task_id,
                line_no: start + to_i32(i) + 1,
                message: line.clone(),
                created_at: now,
            }));
        Ok(u64::try_from(start).unwrap_or(0) + lines.len() as u64)
    }

    async fn logs(&self, task_id: Uuid) -> Result<Vec<(i32, String, DateTime<Utc>)>, RepoError> {
        let t = self.tables();
        let mut lines: Vec<_> = t
            .task_logs
            .iter()
            .filter(|l| l.task_id == task_id)
            .map(|l| (l.line_no, l.message.clone(), l.created_at))
            .collect();
        lines.sort_by_key(|l| l.0);
        Ok(lines)
    }

    async fn accept_result(
        &self,
        task_id: Uuid,
        runner_id: &str,
        result: &serde_json::Value,
        metrics: &serde_json::Value,
    ) -> Result<(), RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let row = t.task_mut(task_id)?;
        if !held_by(row, runner_id) {
            return Err(RepoError::NotFound);
        }
        row.in_progress = true;
        row.result = Some(result.clone());
        row.metrics = Some(metrics.clone());
        row.task.updated_at = now;
        // A fresh lease of the same length for the conclusion, so the sweep does not
        // take the task back mid-way.
        row.lease_expires_at = row
            .lease_expires_at
            .zip(row.claimed_at)
            .map(|(lease, claimed)| now + (lease - claimed));
        Ok(())
    }

    async fn count_finished(
        &self,
        runner_id: &str,
        outcome: RunnerOutcome,
    ) -> Result<(), RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let Ok(row) = t.runner_mut(runner_id) else {
            return Ok(());
        };
        let r = &mut row.runner;
        match outcome {
            RunnerOutcome::Success => r.total_jobs_completed += 1,
            RunnerOutcome::Failed => r.total_jobs_failed += 1,
        }
        if r.status == RunnerStatus::Busy && r.current_jobs - 1 < r.max_concurrent_jobs {
            r.status = RunnerStatus::Online;
        }
        r.current_jobs = (r.current_jobs - 1).max(0);
        row.updated_at = now;
        Ok(())
    }

    async fn release(&self, task_id: Uuid, runner_id: &str, error: &str) -> Result<(), RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let Ok(row) = t.task_mut(task_id) else {
            return Ok(());
        };
        if !held_by(row, runner_id) {
            return Ok(());
        }
        // The claim's attempt is given back: preparation failing is not the task's fault.
        row.task.status = TaskStatus::Queued;
        row.task.attempts -= 1;
        row.task.error_message = Some(error.to_owned());
        row.task.updated_at = now;
        row.runner_id = None;
        row.runner_phase = None;
        row.assignment = None;
        if let Ok(runner) = t.runner_mut(runner_id) {
            runner.runner.current_jobs = (runner.runner.current_jobs - 1).max(0);
            runner.updated_at = now;
        }
        Ok(())
    }

    async fn sweep_silent(&self, silent_before: DateTime<Utc>) -> Result<SweepReport, RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let mut offline = 0;
        for row in &mut t.runners {
            let r = &mut row.runner;
            if r.status != RunnerStatus::Offline
                && r.last_heartbeat.is_none_or(|h| h < silent_before)
            {
                r.status = RunnerStatus::Offline;
                r.current_jobs = 0;
                row.updated_at = now;
                offline += 1;
            }
        }
        let mut report = t.release_tasks_of_offline(
            None,
            "the runner holding it went silent or let its lease run out",
            true,
            now,
        );
        report.runners_offline = offline;
        Ok(report)
    }

    async fn runner_can_take(
        &self,
        task_id: Uuid,
        queued_after: DateTime<Utc>,
        heard_after: DateTime<Utc>,
    ) -> Result<bool, RepoError> {
        let t = self.tables();
        let Some(task) = t.tasks.iter().find(|r| {
            r.task.id == task_id
                && r.task.status == TaskStatus::Queued
                && r.task.updated_at > queued_after
        }) else {
            return Ok(false);
        };
        Ok(t.runners.iter().map(|r| &r.runner).any(|r| {
            r.status != RunnerStatus::Offline
                && r.last_heartbeat.is_some_and(|h| h > heard_after)
                && task.required_tags.iter().all(|tag| r.tags.contains(tag))
                && usize::try_from(r.max_concurrent_jobs).unwrap_or(0) > t.held_count(&r.id)
        }))
    }

    async fn claim_ready(
        &self,
        runner_id: &str,
        caller_key: Uuid,
        limit: u32,
        lease: std::time::Duration,
        retry_delay: std::time::Duration,
        fresh_after: Option<DateTime<Utc>>,
    ) -> Result<ClaimBatch, RepoError> {
        self.claim_prepared_first(
            runner_id,
            caller_key,
            limit,
            lease,
            before(self.now(), retry_delay),
            fresh_after,
        )
    }

    async fn reserve_to_prepare(
        &self,
        retry_delay: std::time::Duration,
        fresh_after: DateTime<Utc>,
        heard_after: DateTime<Utc>,
    ) -> Result<Option<Box<dyn TaskReservation>>, RepoError> {
        let retry_since = before(self.now(), retry_delay);
        Ok(self
            .hold_to_prepare(retry_since, fresh_after, heard_after)
            .map(|r| Box::new(r) as Box<dyn TaskReservation>))
    }

    async fn reserve_orphaned_preparation(&self) -> Result<Option<Orphaned>, RepoError> {
        Ok(self.hold_orphaned())
    }

    async fn preparation_budget(
        &self,
        heard_after: DateTime<Utc>,
        fresh_after: DateTime<Utc>,
    ) -> Result<PreparationBudget, RepoError> {
        Ok(self.tables().preparation_budget(heard_after, fresh_after))
    }
}
