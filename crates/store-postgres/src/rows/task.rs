//! The row of a review task (the queue's record of one requested review).

use crate::error::corrupt;
use crate::schema::review_tasks;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use reviewd_domain::model::{ReviewTask, TriggeredBy};
use reviewd_domain::ports::RepoError;
use uuid::Uuid;

#[derive(Debug, Queryable, QueryableByName, Selectable)]
#[diesel(table_name = review_tasks, check_for_backend(diesel::pg::Pg))]
pub(crate) struct TaskRow {
    id: Uuid,
    triggered_by: String,
    project_id: Uuid,
    review_id: Option<Uuid>,
    mr_iid: i64,
    head_sha: Option<String>,
    status: String,
    send_to_platform: bool,
    template_id: Option<Uuid>,
    requested_by: Option<Uuid>,
    attempts: i32,
    max_attempts: i32,
    worker_id: Option<String>,
    conversation_id: Option<Uuid>,
    full_review: bool,
    error_message: Option<String>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    started_at: Option<DateTime<Utc>>,
    completed_at: Option<DateTime<Utc>>,
}

impl TryFrom<TaskRow> for ReviewTask {
    type Error = RepoError;

    fn try_from(r: TaskRow) -> Result<Self, RepoError> {
        Ok(ReviewTask {
            triggered_by: match r.triggered_by.as_str() {
                "manual" => TriggeredBy::Manual,
                "auto" => TriggeredBy::Auto,
                other => return Err(corrupt(format!("task {}: triggered_by `{other}`", r.id))),
            },
            status: r.status.parse().map_err(|e: String| corrupt(e))?,
            id: r.id,
            project_id: r.project_id.into(),
            review_id: r.review_id.map(Into::into),
            mr_iid: r.mr_iid,
            head_sha: r.head_sha,
            send_to_platform: r.send_to_platform,
            template_id: r.template_id,
            requested_by: r.requested_by,
            attempts: r.attempts,
            max_attempts: r.max_attempts,
            worker_id: r.worker_id,
            conversation_id: r.conversation_id,
            full_review: r.full_review,
            error_message: r.error_message,
            created_at: r.created_at,
            updated_at: r.updated_at,
            started_at: r.started_at,
            completed_at: r.completed_at,
        })
    }
}
