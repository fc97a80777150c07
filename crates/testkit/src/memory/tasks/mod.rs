//! Review tasks in memory, as `review_tasks` keeps them: one active task per dedup
//! key, the runner columns the runner port works on, and (in `attempts`) one live
//! attempt per MR, fenced by the worker's name.

mod attempts;

use super::MemoryStore;
use super::Tables;
use super::tables::TaskRow;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::ReviewId;
use reviewd_domain::model::{NewReviewTask, ReviewTask, TaskStatus, TriggeredBy};
use reviewd_domain::ports::{AttemptEnd, AttemptStart, RepoError, TaskInsert, TaskRepository};
use reviewd_domain::{Page, PageRequest};
use uuid::Uuid;

/// The statuses that hold a dedup key (the partial unique index's condition).
pub(super) fn is_active(status: TaskStatus) -> bool {
    matches!(status, TaskStatus::Queued | TaskStatus::Processing)
}

/// `now - d`, saturating as PostgreSQL's `now() - interval` does for any lease.
pub(super) fn before(now: DateTime<Utc>, d: std::time::Duration) -> DateTime<Utc> {
    chrono::Duration::from_std(d)
        .ok()
        .and_then(|d| now.checked_sub_signed(d))
        .unwrap_or(DateTime::<Utc>::MIN_UTC)
}

impl Tables {
    pub(super) fn task_mut(&mut self, id: Uuid) -> Result<&mut TaskRow, RepoError> {
        self.tasks
            .iter_mut()
            .find(|r| r.task.id == id)
            .ok_or(RepoError::NotFound)
    }

    /// Whether an attempt (a worker's or a runner's) is on the MR now.
    pub(super) fn mr_busy(&self, project_id: ProjectId, mr_iid: i64) -> bool {
        self.tasks.iter().any(|r| {
            r.task.project_id == project_id
                && r.task.mr_iid == mr_iid
                && r.task.status == TaskStatus::Processing
                && r.task.conversation_id.is_none()
        })
    }

    /// Foreign keys to `reviews` fail as PostgreSQL's do.
    pub(super) fn check_review(&self, review_id: Option<ReviewId>) -> Result<(), RepoError> {
        match review_id {
            Some(id) if !self.reviews.iter().any(|r| r.detail.item.id == id) => {
                Err(RepoError::NotFound)
            }
            _ => Ok(()),
        }
    }

    fn active_with_key(&self, key: &str) -> Option<&TaskRow> {
        self.tasks
            .iter()
            .find(|r| is_active(r.task.status) && r.dedup_key.as_deref() == Some(key))
    }

    /// Queued tasks of the MR at another head become `superseded`.
    fn supersede(&mut self, task: &NewReviewTask, now: DateTime<Utc>) -> u64 {
        let Some(head) = task.head_sha.as_deref() else {
            return 0;
        };
        let mut n = 0;
        for row in &mut self.tasks {
            let t = &mut row.task;
            if t.project_id == task.project_id
                && t.mr_iid == task.mr_iid
                && t.status == TaskStatus::Queued
                && t.head_sha.as_deref().is_some_and(|h| h != head)
            {
                t.status = TaskStatus::Superseded;
                t.completed_at = Some(now);
                t.updated_at = now;
                row.dedup_key = None;
                n += 1;
            }
        }
        n
    }
}

fn new_row(task: NewReviewTask, dedup_key: Option<String>, now: DateTime<Utc>) -> TaskRow {
    TaskRow {
        task: ReviewTask {
            id: Uuid::new_v4(),
            triggered_by: task.triggered_by,
            project_id: task.project_id,
            review_id: None,
            mr_iid: task.mr_iid,
            head_sha: task.head_sha,
            status: TaskStatus::Queued,
            send_to_platform: task.send_to_platform,
            template_id: task.template_id,
            requested_by: task.requested_by,
            attempts: 0,
            max_attempts: task.max_attempts,
            worker_id: None,
            conversation_id: task.conversation_id,
            full_review: task.full_review,
            error_message: None,
            created_at: now,
            updated_at: now,
            started_at: None,
            completed_at: None,
        },
        in_progress: false,
        dedup_key,
        stream_message_id: None,
        runner_id: None,
        runner_phase: None,
        claimed_at: None,
        heartbeat_at: None,
        lease_expires_at: None,
        required_tags: Vec::new(),
        result: None,
        metrics: None,
        assignment: None,
    }
}

/// Ends the task with `status`; its dedup key is free for a new task.
fn finish(row: &mut TaskRow, status: TaskStatus, now: DateTime<Utc>) {
    row.task.status = status;
    row.task.completed_at = Some(now);
    row.task.updated_at = now;
    row.dedup_key = None;
}

#[async_trait]
impl TaskRepository for MemoryStore {
    async fn insert(&self, task: NewReviewTask) -> Result<(TaskInsert, u64), RepoError> {
        let now = self.now();
        let mut t = self.tables();
        if !t.projects.iter().any(|p| p.id == task.project_id) {
            return Err(RepoError::NotFound);
        }
        let dedup_key = task.dedup_key();
        if let Some(existing) = dedup_key.as_deref().and_then(|k| t.active_with_key(k)) {
            return Ok((TaskInsert::Duplicate(existing.task.clone()), 0));
        }
        let superseded = t.supersede(&task, now);
        let row = new_row(task, dedup_key, now);
        let created = row.task.clone();
        t.tasks.push(row);
        Ok((TaskInsert::Created(created), superseded))
    }

    async fn get(&self, id: Uuid) -> Result<ReviewTask, RepoError> {
        Ok(self.tables().task_mut(id)?.task.clone())
    }

    async fn set_stream_id(&self, id: Uuid, stream_id: &str) -> Result<(), RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let row = t.task_mut(id)?;
        row.stream_message_id = Some(stream_id.to_owned());
        row.task.updated_at = now;
        Ok(())
    }

    async fn claim_orphans(
        &self,
        older_than_secs: u64,
        limit: u32,
    ) -> Result<Vec<Uuid>, RepoError> {
        let now = self.now();
        let cutoff = before(now, std::time::Duration::from_secs(older_than_secs));
        let mut t = self.tables();
        let orphans = t.tasks.iter_mut().filter(|r| {
            r.task.status == TaskStatus::Queued
                && r.stream_message_id.is_none()
                && r.task.created_at < cutoff
        });
        Ok(orphans
            .take(usize::try_from(limit).unwrap_or(usize::MAX))
            .map(|r| {
                // The mark that keeps a second replica from pushing it again.
                r.stream_message_id = Some("requeueing".into());
                r.task.updated_at = now;
                r.task.id
            })
            .collect())
    }

    async fn fail(&self, id: Uuid, error: &str) -> Result<(), RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let row = t.task_mut(id)?;
        row.task.error_message = Some(error.to_owned());
        finish(row, TaskStatus::Failed, now);
        Ok(())
    }

    async fn begin_attempt(
        &self,
        id: Uuid,
        worker: &str,
        lease: std::time::Duration,
    ) -> Result<AttemptStart, RepoError> {
        let now = self.now();
        self.tables().begin_attempt(id, worker, lease, now)
    }

    async fn renew_attempt(&self, id: Uuid, worker: &str) -> Result<bool, RepoError> {
        let now = self.now();
        Ok(self.tables().renew_attempt(id, worker, now))
    }

    async fn finish_attempt(
        &self,
        id: Uuid,
        worker: &str,
        end: AttemptEnd<'_>,
    ) -> Result<bool, RepoError> {
        let now = self.now();
        self.tables().finish_attempt(id, worker, end, now)
    }

    async fn unfinished(&self, after: Option<Uuid>, limit: u32) -> Result<Vec<Uuid>, RepoError> {
        Ok(self.tables().unfinished(after, limit))
    }

    async fn link_review(&self, id: Uuid, review_id: ReviewId) -> Result<(), RepoError> {
        let now = self.now();
        let mut t = self.tables();
        t.check_review(Some(review_id))?;
        let row = t.task_mut(id)?;
        row.task.review_id = Some(review_id);
        row.task.updated_at = now;
        Ok(())
    }

    async fn complete(&self, id: Uuid, review_id: Option<ReviewId>) -> Result<(), RepoError> {
        let now = self.now();
        let mut t = self.tables();
        t.check_review(review_id)?;
        let row = t.task_mut(id)?;
        row.task.review_id = review_id;
        row.task.error_message = None;
        finish(row, TaskStatus::Completed, now);
        Ok(())
    }

    async fn requeue(&self, id: Uuid, error: &str) -> Result<(), RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let row = t.task_mut(id)?;
        row.task.status = TaskStatus::Queued;
        row.task.error_message = Some(error.to_owned());
        row.task.updated_at = now;
        // Back in the queue, no runner holds it any more.
        row.runner_id = None;
        row.runner_phase = None;
        row.lease_expires_at = None;
        row.assignment = None;
        Ok(())
    }

    async fn list(
        &self,
        status: Option<TaskStatus>,
        triggered_by: Option<TriggeredBy>,
        page: PageRequest,
    ) -> Result<Page<ReviewTask>, RepoError> {
        let t = self.tables();
        let mut all: Vec<ReviewTask> = t
            .tasks
            .iter()
            .map(|r| &r.task)
            .filter(|task| status.is_none_or(|s| task.status == s))
            .filter(|task| triggered_by.is_none_or(|k| task.triggered_by == k))
            .cloned()
            .collect();
        all.sort_by_key(|t| std::cmp::Reverse((t.created_at, t.id)));
        Ok(Page::from_all(all, page))
    }
}
