//! Review tasks: the list and one task.

use super::schemas::{
    task_location, task_status_filter_schema, task_status_schema, triggered_by_schema,
};
use crate::envelope::{self, Data, Paginated};
use crate::error::ApiError;
use crate::extract::{AuthUser, PageParams};
use crate::field_schemas::string_enum;
use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use chrono::{DateTime, Utc};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::ReviewTask;
use reviewd_domain::model::TaskStatus;
use serde::Deserialize;
use serde::Serialize;
use utoipa::openapi::Object;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(super) struct TasksQuery {
    /// Only tasks in this state (`pending` and `in_progress` are other names of
    /// `queued` and `processing`).
    #[param(schema_with = task_status_filter_schema)]
    status: Option<String>,
    #[serde(flatten)]
    #[param(ignore)]
    page: PageParams,
}

pub(super) fn status_filter(value: Option<&str>) -> Result<Option<TaskStatus>, ApiError> {
    value
        .map(|s| {
            s.parse()
                .map_err(|e: String| ApiError::bad_request(ErrorCode::InvalidQuery, e))
        })
        .transpose()
}

/// The review tasks of the queue, newest first.
#[utoipa::path(
    params(TasksQuery, PageParams),
    responses((status = 200, body = Paginated<ReviewTaskDto>))
)]
#[get("/tasks")]
pub(super) async fn list_review_tasks(
    state: web::Data<AppState>,
    _user: AuthUser,
    query: web::Query<TasksQuery>,
) -> Result<HttpResponse, ApiError> {
    let status = status_filter(query.status.as_deref())?;
    let page = state
        .tasks
        .list(status, None, query.page.to_request(20, 100)?)
        .await?;
    Ok(envelope::paginated(page, ReviewTaskDto::from))
}

/// A review task, manual or not: where clients poll a triggered review.
#[utoipa::path(responses((status = 200, body = Data<OneReviewTask>)))]
#[get("/manual/tasks/{task_id}")]
pub(super) async fn get_review_task(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let task = state.tasks.get(*id).await?;
    Ok(envelope::ok(OneReviewTask {
        task: ReviewTaskDto::from(task),
    }))
}

// ---------------------------------------------------------------------------
// Tasks

/// A review task: one unit of queued review work and where it stands.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewTaskDto {
    id: Uuid,
    #[schema(schema_with = task_status_schema)]
    status: &'static str,
    /// The review it produced, once it has started one.
    review_id: Option<Uuid>,
    project_id: Uuid,
    mr_iid: i64,
    head_sha: Option<String>,
    #[schema(schema_with = triggered_by_schema)]
    triggered_by: &'static str,
    send_to_platform: bool,
    attempts: i32,
    max_attempts: i32,
    error_message: Option<String>,
    /// Where to poll this task (`GET`).
    location: String,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    started_at: Option<DateTime<Utc>>,
    completed_at: Option<DateTime<Utc>>,
}

impl From<ReviewTask> for ReviewTaskDto {
    fn from(t: ReviewTask) -> Self {
        ReviewTaskDto {
            location: task_location(t.id),
            id: t.id,
            status: t.status.as_str(),
            review_id: t.review_id.map(Uuid::from),
            project_id: t.project_id.into(),
            mr_iid: t.mr_iid,
            head_sha: t.head_sha,
            triggered_by: t.triggered_by.as_str(),
            send_to_platform: t.send_to_platform,
            attempts: t.attempts,
            max_attempts: t.max_attempts,
            error_message: t.error_message,
            created_at: t.created_at,
            updated_at: t.updated_at,
            started_at: t.started_at,
            completed_at: t.completed_at,
        }
    }
}

/// `{"task": ...}`.
#[derive(Serialize, ToSchema)]
pub(super) struct OneReviewTask {
    pub task: ReviewTaskDto,
}

pub(super) fn trigger_status_schema() -> Object {
    string_enum(["queued", "failed"])
}

/// The task a manual trigger queued (or found active for the same MR head).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct TriggeredTask {
    pub id: Uuid,
    /// `queued`, or `failed` when the queue could not take it (the task is recorded).
    #[schema(schema_with = trigger_status_schema)]
    pub status: &'static str,
    pub sent_to_platform: bool,
    /// Where to poll the task (`GET`); also the answer's `Location`.
    pub location: String,
    pub error_message: Option<String>,
}

/// The answer of a manual trigger.
#[derive(Serialize, ToSchema)]
pub(super) struct TriggeredReview {
    /// Whether the task is in the queue.
    pub queued: bool,
    pub task: TriggeredTask,
}
