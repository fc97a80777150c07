//! `/api/reviews`: so far the manual trigger and the queue's task records; the review
//! history endpoints arrive with the review engine.

use crate::envelope;
use crate::error::ApiError;
use crate::extract::{AuthUser, PageParams, RequirePermission, ValidatedJson, perm};
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use chrono::{DateTime, Utc};
use reviewd_domain::PageRequest;
use reviewd_domain::model::{ReviewTask, TaskStatus, TriggeredBy};
use reviewd_domain::services::{Enqueued, ManualReviewRequest};
use serde::{Deserialize, Serialize};
use serde_json::json;
use uuid::Uuid;
use validator::Validate;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/reviews")
            .route(
                "/trigger-manual-review",
                web::post().to(trigger_manual_review),
            )
            .route("/tasks", web::get().to(list_tasks))
            .route("/manual/tasks/recent", web::get().to(recent_manual_tasks))
            .route("/manual/tasks/{task_id}", web::get().to(get_manual_task)),
    );
}

/// Where clients poll a task.
fn location(id: Uuid) -> String {
    format!("/api/reviews/manual/tasks/{id}")
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TaskDto {
    id: Uuid,
    status: TaskStatus,
    review_id: Option<Uuid>,
    project_id: Uuid,
    mr_iid: i64,
    head_sha: Option<String>,
    triggered_by: TriggeredBy,
    send_to_platform: bool,
    attempts: i32,
    max_attempts: i32,
    error_message: Option<String>,
    location: String,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    started_at: Option<DateTime<Utc>>,
    completed_at: Option<DateTime<Utc>>,
}

impl From<ReviewTask> for TaskDto {
    fn from(t: ReviewTask) -> Self {
        TaskDto {
            location: location(t.id),
            id: t.id,
            status: t.status,
            review_id: t.review_id,
            project_id: t.project_id,
            mr_iid: t.mr_iid,
            head_sha: t.head_sha,
            triggered_by: t.triggered_by,
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

#[derive(Deserialize, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TriggerBody {
    project_id: Uuid,
    #[validate(range(min = 1, message = "must be a positive number"))]
    mr_iid: i64,
    send_to_platform: Option<bool>,
    template_id: Option<Uuid>,
}

/// 202 with the task: `status` is `queued` (a new task, or the active one for this
/// MR head) or `failed` (recorded, but the queue could not take it).
async fn trigger_manual_review(
    state: web::Data<AppState>,
    RequirePermission(caller, _): RequirePermission<perm::ReviewCreate>,
    body: ValidatedJson<TriggerBody>,
) -> Result<HttpResponse, ApiError> {
    let b = body.0;
    let request = ManualReviewRequest {
        project_id: b.project_id,
        mr_iid: b.mr_iid,
        send_to_platform: b.send_to_platform,
        template_id: b.template_id,
    };
    let enqueued = state.manual_reviews.trigger(&caller, request).await?;
    let (queued, status) = match &enqueued {
        Enqueued::Queued(_) | Enqueued::AlreadyActive(_) => (true, "queued"),
        Enqueued::QueueFailed(_) => (false, "failed"),
    };
    let task = enqueued.task();
    Ok(HttpResponse::Accepted()
        .insert_header(("Location", location(task.id)))
        .json(json!({ "data": {
        "queued": queued,
        "task": {
            "id": task.id,
            "status": status,
            "sentToPlatform": task.send_to_platform,
            "location": location(task.id),
            "errorMessage": task.error_message,
        },
    } })))
}

#[derive(Deserialize)]
struct TasksQuery {
    status: Option<String>,
    #[serde(flatten)]
    page: PageParams,
}

fn status_filter(value: Option<&str>) -> Result<Option<TaskStatus>, ApiError> {
    value
        .map(|s| {
            s.parse()
                .map_err(|e: String| ApiError::bad_request("INVALID_QUERY", e))
        })
        .transpose()
}

async fn list_tasks(
    state: web::Data<AppState>,
    _user: AuthUser,
    query: web::Query<TasksQuery>,
) -> Result<HttpResponse, ApiError> {
    let status = status_filter(query.status.as_deref())?;
    let page = state
        .tasks
        .list(status, None, query.page.to_request(20, 100)?)
        .await?;
    Ok(envelope::paginated(page, TaskDto::from))
}

#[derive(Deserialize)]
struct RecentQuery {
    limit: Option<String>,
}

async fn recent_manual_tasks(
    state: web::Data<AppState>,
    _user: AuthUser,
    query: web::Query<RecentQuery>,
) -> Result<HttpResponse, ApiError> {
    let limit = match query.limit.as_deref() {
        None => 5,
        Some(v) => v.parse::<u32>().ok().filter(|n| *n >= 1).ok_or_else(|| {
            ApiError::bad_request("INVALID_QUERY", "limit must be a positive whole number")
        })?,
    };
    let page = state
        .tasks
        .list(
            None,
            Some(TriggeredBy::Manual),
            PageRequest::new(1, limit, 50),
        )
        .await?;
    let items: Vec<TaskDto> = page.items.into_iter().map(TaskDto::from).collect();
    Ok(envelope::ok(json!({ "items": items })))
}

async fn get_manual_task(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let task = state.tasks.get(*id).await?;
    Ok(envelope::ok(json!({ "task": TaskDto::from(task) })))
}
