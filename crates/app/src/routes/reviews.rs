//! `/api/reviews`: the review history and everything recorded about a review, the
//! manual trigger and the queue's task records.

use crate::envelope;
use crate::error::ApiError;
use crate::extract::{
    AuthUser, PageParams, RequirePermission, ValidatedJson, date_from, date_until, one_of, perm,
};
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use chrono::{DateTime, Utc};
use reviewd_domain::ErrorCode;
use reviewd_domain::PageRequest;
use reviewd_domain::model::review_views::ReviewFilter;
use reviewd_domain::model::{ReviewTask, TaskStatus, TriggeredBy};
use reviewd_domain::services::{Enqueued, ManualReviewRequest};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa_actix_web::{scope, service_config::ServiceConfig};
use uuid::Uuid;
use validator::Validate;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(scope(
        web::scope("/reviews")
            .route("", web::get().to(list_reviews))
            .route(
                "/trigger-manual-review",
                web::post().to(trigger_manual_review),
            )
            .route("/tasks", web::get().to(list_tasks))
            .route("/manual/projects", web::get().to(manual_projects))
            .route("/manual/history", web::get().to(manual_history))
            .route(
                "/manual/merge-requests",
                web::get().to(manual_merge_requests),
            )
            .route("/manual/tasks/recent", web::get().to(recent_manual_tasks))
            .route("/manual/tasks/{task_id}", web::get().to(get_manual_task))
            .route("/templates/all", web::get().to(list_templates))
            .route("/rules/all", web::get().to(list_rules))
            .route("/{review_id}", web::get().to(get_review))
            .route("/{review_id}/comments", web::get().to(review_comments))
            .route("/{review_id}/files", web::get().to(review_files))
            .route(
                "/{review_id}/files/progress",
                web::get().to(review_file_progress),
            )
            .route(
                "/{review_id}/files/{file_id}/retry",
                web::post().to(retry_file),
            )
            .route("/{review_id}/rounds", web::get().to(review_rounds))
            .route("/{review_id}/feedbacks", web::get().to(review_feedbacks))
            .route("/{review_id}/ai-logs", web::get().to(review_ai_logs))
            .route("/{review_id}/logs", web::get().to(review_logs)),
    ));
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
                .map_err(|e: String| ApiError::bad_request(ErrorCode::InvalidQuery, e))
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
            ApiError::bad_request(
                ErrorCode::InvalidQuery,
                "limit must be a positive whole number",
            )
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

/// A bounded count parameter: non-numeric or below `min` is a 400, above `max` clamped.
fn bounded(
    name: &str,
    value: Option<&str>,
    default: u32,
    min: u32,
    max: u32,
) -> Result<u32, ApiError> {
    match value {
        None => Ok(default),
        Some(v) => v
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|n| *n >= u64::from(min))
            .map(|n| u32::try_from(n.min(u64::from(max))).unwrap_or(max))
            .ok_or_else(|| {
                ApiError::bad_request(
                    ErrorCode::InvalidQuery,
                    format!("{name} must be a whole number of at least {min}"),
                )
            }),
    }
}

fn offset(value: Option<&str>) -> Result<u64, ApiError> {
    value
        .map_or(Ok(0), |v| v.trim().parse::<u64>())
        .map_err(|_| {
            ApiError::bad_request(
                ErrorCode::InvalidQuery,
                "offset must be a whole number of at least 0",
            )
        })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReviewListQuery {
    project_id: Option<Uuid>,
    status: Option<String>,
    start_date: Option<String>,
    end_date: Option<String>,
    #[serde(flatten)]
    page: PageParams,
}

async fn list_reviews(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<ReviewListQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = ReviewFilter {
        project_id: q.project_id,
        project_search: None,
        status: one_of(
            "status",
            q.status.as_deref(),
            &["pending", "completed", "failed"],
        )?,
        start_date: date_from("startDate", q.start_date.as_deref())?,
        end_date: date_until("endDate", q.end_date.as_deref())?,
        triggered_by: None,
    };
    let (page, stats) = state
        .history
        .list(&filter, q.page.to_request(20, 100)?)
        .await?;
    let meta = envelope::Pagination::of(&page);
    Ok(HttpResponse::Ok().json(
        json!({ "data": { "items": page.items, "stats": stats }, "meta": { "pagination": meta } }),
    ))
}

async fn get_review(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(
        json!({ "review": state.history.detail(*id).await? }),
    ))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CommentsQuery {
    file_path: Option<String>,
    severity: Option<String>,
    limit: Option<String>,
    offset: Option<String>,
}

async fn review_comments(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
    q: web::Query<CommentsQuery>,
) -> Result<HttpResponse, ApiError> {
    let severity = one_of(
        "severity",
        q.severity.as_deref(),
        &["info", "warning", "error"],
    )?;
    let (limit, offset) = (
        bounded("limit", q.limit.as_deref(), 20, 1, 100)?,
        offset(q.offset.as_deref())?,
    );
    let (items, total) = state
        .history
        .comments(
            *id,
            q.file_path.as_deref(),
            severity.as_deref(),
            limit,
            offset,
        )
        .await?;
    Ok(HttpResponse::Ok().json(json!({ "data": { "items": items }, "meta": { "pagination": { "limit": limit, "offset": offset, "total": total } } })))
}

async fn review_files(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(
        json!({ "files": state.history.files(*id).await? }),
    ))
}

/// Per-file processing status with the prompt summary, as the files are reviewed.
async fn review_file_progress(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let files = state.history.files(*id).await?;
    let progress: Vec<_> = files
        .iter()
        .map(|f| json!({
            "fileId": f.id, "filePath": f.file_path, "status": f.status, "promptSummary": f.prompt_summary,
            "commentCount": f.comment_count, "attempts": f.attempts, "errorMessage": f.error_message,
            "startedAt": f.started_at, "completedAt": f.completed_at,
        }))
        .collect();
    let done = files
        .iter()
        .filter(|f| matches!(f.status.as_str(), "completed" | "failed" | "skipped"))
        .count();
    Ok(envelope::ok(
        json!({ "files": progress, "completed": done, "total": files.len() }),
    ))
}

async fn review_rounds(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(
        json!({ "rounds": state.history.rounds(*id).await? }),
    ))
}

async fn review_feedbacks(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(
        json!({ "feedbacks": state.history.feedbacks(*id).await? }),
    ))
}

#[derive(Deserialize)]
struct AiLogsQuery {
    limit: Option<String>,
    offset: Option<String>,
    provider: Option<String>,
    status: Option<String>,
}

async fn review_ai_logs(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
    q: web::Query<AiLogsQuery>,
) -> Result<HttpResponse, ApiError> {
    let status = one_of("status", q.status.as_deref(), &["success", "failed"])?;
    let (limit, offset) = (
        bounded("limit", q.limit.as_deref(), 50, 1, 200)?,
        offset(q.offset.as_deref())?,
    );
    let (items, total) = state
        .history
        .ai_logs(*id, q.provider.as_deref(), status.as_deref(), limit, offset)
        .await?;
    Ok(HttpResponse::Ok().json(json!({ "data": { "items": items }, "meta": { "pagination": { "limit": limit, "offset": offset, "total": total } } })))
}

/// The execution log of the review: its task records and their log lines.
async fn review_logs(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let review = state.history.detail(*id).await?;
    let lines = state.history.task_logs(*id).await?;
    Ok(envelope::ok(json!({
        "reviewId": review.item.id,
        "status": review.item.status,
        "errorMessage": review.error_message,
        "startedAt": review.started_at,
        "completedAt": review.item.completed_at,
        "lines": lines,
    })))
}

async fn manual_projects(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let projects: Vec<_> = state
        .projects
        .list_all()
        .await?
        .into_iter()
        .filter(|p| p.enabled)
        .map(|p| json!({ "id": p.id, "name": p.name, "fullPath": p.full_path, "platformType": p.platform_type, "webUrl": p.web_url }))
        .collect();
    Ok(envelope::ok(json!({ "items": projects })))
}

#[derive(Deserialize)]
struct HistoryQuery {
    limit: Option<String>,
}

async fn manual_history(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<HistoryQuery>,
) -> Result<HttpResponse, ApiError> {
    let limit = bounded("limit", q.limit.as_deref(), 5, 1, 20)?;
    let filter = ReviewFilter {
        triggered_by: Some("manual".into()),
        ..ReviewFilter::default()
    };
    let (page, _) = state
        .history
        .list(&filter, PageRequest::new(1, limit, 20))
        .await?;
    Ok(envelope::ok(json!({ "items": page.items })))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ManualMrQuery {
    project_id: Option<Uuid>,
    state: Option<reviewd_domain::model::MrState>,
    search: Option<String>,
    #[serde(flatten)]
    page: PageParams,
}

async fn manual_merge_requests(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<ManualMrQuery>,
) -> Result<HttpResponse, ApiError> {
    let project_id = q
        .project_id
        .ok_or_else(|| ApiError::bad_request(ErrorCode::InvalidQuery, "projectId is required"))?;
    let page = q.page.to_request(20, 100)?;
    let mrs = state
        .projects
        .merge_requests(
            project_id,
            q.state.unwrap_or(reviewd_domain::model::MrState::Opened),
            q.search.as_deref(),
            page,
        )
        .await?;
    Ok(envelope::ok(
        json!({ "items": mrs.items, "hasNext": mrs.has_next }),
    ))
}

async fn list_templates(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(
        json!({ "templates": state.history.templates().await? }),
    ))
}

async fn list_rules(state: web::Data<AppState>, _user: AuthUser) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(
        json!({ "rules": state.history.rules().await? }),
    ))
}

/// Re-runs the review of one file now and answers with the file's new state.
async fn retry_file(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ReviewCreate>,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let (review_id, file_id) = path.into_inner();
    let added = state.engine.retry_file(review_id, file_id).await?;
    let file = state
        .history
        .files(review_id)
        .await?
        .into_iter()
        .find(|f| f.id == file_id);
    Ok(envelope::ok(
        json!({ "success": true, "newComments": added, "file": file }),
    ))
}
