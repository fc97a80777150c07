//! `/api/reviews`: the review history and everything recorded about a review, the
//! manual trigger and the queue's task records.

use super::dto::MergeRequestDto;
use super::reviews_dto::{
    AI_CALL_STATUSES, ManualMergeRequests, ManualReviewProjectDto, OneReview, OneReviewTask,
    REVIEW_STATUSES, RetriedReviewFile, ReviewAiLogDto, ReviewCommentDto, ReviewExecutionLog,
    ReviewFeedbackDto, ReviewFeedbacks, ReviewFileDto, ReviewFileProgressDto,
    ReviewFileProgressReport, ReviewFiles, ReviewItemsPage, ReviewListItemDto, ReviewPage,
    ReviewPageData, ReviewRoundDto, ReviewRounds, ReviewRuleDto, ReviewRules, ReviewTaskDto,
    ReviewTaskLogLineDto, ReviewTemplateDto, ReviewTemplates, SEVERITIES, TriggeredReview,
    TriggeredTask, ai_call_status_schema, mr_state_schema, review_status_schema, severity_schema,
    task_location, task_status_filter_schema,
};
use crate::envelope::{self, Data, Items, PageMeta, Paginated};
use crate::error::ApiError;
use crate::extract::{
    AuthUser, PageParams, RequirePermission, ValidatedJson, date_from, date_until, one_of, perm,
};
use crate::state::AppState;
use actix_web::{HttpResponse, get, post, web};
use reviewd_domain::ErrorCode;
use reviewd_domain::PageRequest;
use reviewd_domain::model::review_views::ReviewFilter;
use reviewd_domain::model::{MrState, TaskStatus, TriggeredBy};
use reviewd_domain::services::{Enqueued, ManualReviewRequest};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use utoipa_actix_web::{scope, service_config::ServiceConfig};
use uuid::Uuid;
use validator::Validate;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        scope("/reviews")
            .service(list_reviews)
            .service(trigger_manual_review)
            .service(list_review_tasks)
            .service(list_manual_review_projects)
            .service(list_manual_review_history)
            .service(list_manual_merge_requests)
            .service(list_recent_manual_tasks)
            .service(get_review_task)
            .service(list_review_templates)
            .service(list_review_rules)
            .service(get_review)
            .service(list_review_comments)
            .service(list_review_files)
            .service(get_review_file_progress)
            .service(retry_review_file)
            .service(list_review_rounds)
            .service(list_review_feedbacks)
            .service(list_review_ai_logs)
            .service(get_review_logs),
    );
}

/// A date filter: `crate::openapi::date_or_datetime`, as a parameter's schema (its
/// `OneOf` is not one by itself).
#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
struct ReviewListQuery {
    /// Only this project's reviews.
    #[param(value_type = Option<Uuid>)]
    project_id: Option<Uuid>,
    /// Only reviews in this state.
    #[param(schema_with = review_status_schema)]
    status: Option<String>,
    /// Only reviews created at or after this time (a plain date: from its start, UTC).
    #[param(schema_with = crate::openapi::date_or_datetime)]
    start_date: Option<String>,
    /// Only reviews created at or before this time (a plain date: to its end, UTC).
    #[param(schema_with = crate::openapi::date_or_datetime)]
    end_date: Option<String>,
    #[serde(flatten)]
    #[param(ignore)]
    page: PageParams,
}

/// The review history, newest first, with aggregates of the whole filtered set.
#[utoipa::path(
    params(ReviewListQuery, PageParams),
    responses((status = 200, body = ReviewPage))
)]
#[get("")]
async fn list_reviews(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<ReviewListQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = ReviewFilter {
        project_id: q.project_id,
        project_search: None,
        status: one_of("status", q.status.as_deref(), &REVIEW_STATUSES)?,
        start_date: date_from("startDate", q.start_date.as_deref())?,
        end_date: date_until("endDate", q.end_date.as_deref())?,
        triggered_by: None,
    };
    let (page, stats) = state
        .history
        .list(&filter, q.page.to_request(20, 100)?)
        .await?;
    let pagination = envelope::Pagination::of(&page);
    Ok(HttpResponse::Ok().json(ReviewPage {
        data: ReviewPageData {
            items: page
                .items
                .into_iter()
                .map(ReviewListItemDto::from)
                .collect(),
            stats: stats.into(),
        },
        meta: PageMeta { pagination },
    }))
}

#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TriggerManualReviewBody {
    project_id: Uuid,
    /// The merge (or pull) request's number in its project.
    #[validate(range(min = 1, message = "must be a positive number"))]
    #[schema(minimum = 1, maximum = 9_223_372_036_854_775_807_i64)]
    mr_iid: i64,
    /// Whether to post the review on the platform; the project's setting when absent.
    send_to_platform: Option<bool>,
    /// The template framing the prompt; the project's (or the default) when absent.
    template_id: Option<Uuid>,
}

/// Queues a review of a merge request now.
///
/// Answers 202 with the task, whose poll address is also in `Location`: `status` is
/// `queued` (a new task, or the active one for this MR head) or `failed` (recorded,
/// but the queue could not take it).
#[utoipa::path(
    request_body = TriggerManualReviewBody,
    responses((
        status = 202,
        body = Data<TriggeredReview>,
        headers(("Location" = String, description = "Where to poll the task."))
    ))
)]
#[post("/trigger-manual-review")]
async fn trigger_manual_review(
    state: web::Data<AppState>,
    RequirePermission(caller, _): RequirePermission<perm::ReviewCreate>,
    body: ValidatedJson<TriggerManualReviewBody>,
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
        .insert_header(("Location", task_location(task.id)))
        .json(Data {
            data: TriggeredReview {
                queued,
                task: TriggeredTask {
                    id: task.id,
                    status,
                    sent_to_platform: task.send_to_platform,
                    location: task_location(task.id),
                    error_message: task.error_message.clone(),
                },
            },
        }))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct TasksQuery {
    /// Only tasks in this state (`pending` and `in_progress` are other names of
    /// `queued` and `processing`).
    #[param(schema_with = task_status_filter_schema)]
    status: Option<String>,
    #[serde(flatten)]
    #[param(ignore)]
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

/// The review tasks of the queue, newest first.
#[utoipa::path(
    params(TasksQuery, PageParams),
    responses((status = 200, body = Paginated<ReviewTaskDto>))
)]
#[get("/tasks")]
async fn list_review_tasks(
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

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct RecentQuery {
    /// How many tasks (5 when absent); above 50 it is clamped to 50.
    #[param(value_type = Option<u64>, minimum = 1, maximum = 4_294_967_295_u64)]
    limit: Option<String>,
}

/// The newest manually triggered tasks.
#[utoipa::path(
    params(RecentQuery),
    responses((status = 200, body = Data<Items<ReviewTaskDto>>))
)]
#[get("/manual/tasks/recent")]
async fn list_recent_manual_tasks(
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
    let items: Vec<ReviewTaskDto> = page.items.into_iter().map(ReviewTaskDto::from).collect();
    Ok(envelope::ok(Items { items }))
}

/// A review task, manual or not: where clients poll a triggered review.
#[utoipa::path(responses((status = 200, body = Data<OneReviewTask>)))]
#[get("/manual/tasks/{task_id}")]
async fn get_review_task(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let task = state.tasks.get(*id).await?;
    Ok(envelope::ok(OneReviewTask {
        task: ReviewTaskDto::from(task),
    }))
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

/// A review.
#[utoipa::path(responses((status = 200, body = Data<OneReview>)))]
#[get("/{review_id}")]
async fn get_review(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(OneReview {
        review: state.history.detail(*id).await?.into(),
    }))
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
struct CommentsQuery {
    /// Only the comments on this file (its path in the merge request).
    file_path: Option<String>,
    /// Only comments of this severity.
    #[param(schema_with = severity_schema)]
    severity: Option<String>,
    /// How many comments (20 when absent); above 100 it is clamped to 100.
    #[param(value_type = Option<u64>, minimum = 1, maximum = 18_446_744_073_709_551_615_u64)]
    limit: Option<String>,
    /// How many comments to skip (0 when absent).
    #[param(value_type = Option<u64>, minimum = 0, maximum = 18_446_744_073_709_551_615_u64)]
    offset: Option<String>,
}

/// The review's comments, by file and line.
#[utoipa::path(
    params(CommentsQuery),
    responses((status = 200, body = ReviewItemsPage<ReviewCommentDto>))
)]
#[get("/{review_id}/comments")]
async fn list_review_comments(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
    q: web::Query<CommentsQuery>,
) -> Result<HttpResponse, ApiError> {
    let severity = one_of("severity", q.severity.as_deref(), &SEVERITIES)?;
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
    let items = items.into_iter().map(ReviewCommentDto::from).collect();
    Ok(HttpResponse::Ok().json(ReviewItemsPage::new(items, limit, offset, total)))
}

/// The files of the review.
#[utoipa::path(responses((status = 200, body = Data<ReviewFiles>)))]
#[get("/{review_id}/files")]
async fn list_review_files(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let files = state.history.files(*id).await?;
    Ok(envelope::ok(ReviewFiles {
        files: files.into_iter().map(ReviewFileDto::from).collect(),
    }))
}

/// Per-file processing status with the prompt summary, as the files are reviewed.
#[utoipa::path(responses((status = 200, body = Data<ReviewFileProgressReport>)))]
#[get("/{review_id}/files/progress")]
async fn get_review_file_progress(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let files = state.history.files(*id).await?;
    let progress: Vec<ReviewFileProgressDto> =
        files.iter().map(ReviewFileProgressDto::from).collect();
    let done = files
        .iter()
        .filter(|f| matches!(f.status.as_str(), "completed" | "failed" | "skipped"))
        .count();
    Ok(envelope::ok(ReviewFileProgressReport {
        files: progress,
        completed: done,
        total: files.len(),
    }))
}

/// Re-runs the review of one file now and answers with the file's new state.
#[utoipa::path(responses((status = 200, body = Data<RetriedReviewFile>)))]
#[post("/{review_id}/files/{file_id}/retry")]
async fn retry_review_file(
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
    Ok(envelope::ok(RetriedReviewFile {
        success: true,
        new_comments: added,
        file: file.map(ReviewFileDto::from),
    }))
}

/// The rounds of the review, one per reviewed head, oldest first.
#[utoipa::path(responses((status = 200, body = Data<ReviewRounds>)))]
#[get("/{review_id}/rounds")]
async fn list_review_rounds(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let rounds = state.history.rounds(*id).await?;
    Ok(envelope::ok(ReviewRounds {
        rounds: rounds.into_iter().map(ReviewRoundDto::from).collect(),
    }))
}

/// The feedback given on the review's comments.
#[utoipa::path(responses((status = 200, body = Data<ReviewFeedbacks>)))]
#[get("/{review_id}/feedbacks")]
async fn list_review_feedbacks(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let feedbacks = state.history.feedbacks(*id).await?;
    Ok(envelope::ok(ReviewFeedbacks {
        feedbacks: feedbacks.into_iter().map(ReviewFeedbackDto::from).collect(),
    }))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct AiLogsQuery {
    /// How many calls (50 when absent); above 200 it is clamped to 200.
    #[param(value_type = Option<u64>, minimum = 1, maximum = 18_446_744_073_709_551_615_u64)]
    limit: Option<String>,
    /// How many calls to skip (0 when absent).
    #[param(value_type = Option<u64>, minimum = 0, maximum = 18_446_744_073_709_551_615_u64)]
    offset: Option<String>,
    /// Only the calls to this AI provider.
    provider: Option<String>,
    /// Only the calls with this outcome.
    #[param(schema_with = ai_call_status_schema)]
    status: Option<String>,
}

/// The AI calls made for the review, newest first.
#[utoipa::path(
    params(AiLogsQuery),
    responses((status = 200, body = ReviewItemsPage<ReviewAiLogDto>))
)]
#[get("/{review_id}/ai-logs")]
async fn list_review_ai_logs(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
    q: web::Query<AiLogsQuery>,
) -> Result<HttpResponse, ApiError> {
    let status = one_of("status", q.status.as_deref(), &AI_CALL_STATUSES)?;
    let (limit, offset) = (
        bounded("limit", q.limit.as_deref(), 50, 1, 200)?,
        offset(q.offset.as_deref())?,
    );
    let (items, total) = state
        .history
        .ai_logs(*id, q.provider.as_deref(), status.as_deref(), limit, offset)
        .await?;
    let items = items.into_iter().map(ReviewAiLogDto::from).collect();
    Ok(HttpResponse::Ok().json(ReviewItemsPage::new(items, limit, offset, total)))
}

/// The execution log of the review: its task records and their log lines.
#[utoipa::path(responses((status = 200, body = Data<ReviewExecutionLog>)))]
#[get("/{review_id}/logs")]
async fn get_review_logs(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let review = state.history.detail(*id).await?;
    let lines = state.history.task_logs(*id).await?;
    Ok(envelope::ok(ReviewExecutionLog {
        review_id: review.item.id,
        status: review.item.status,
        error_message: review.error_message,
        started_at: review.started_at,
        completed_at: review.item.completed_at,
        lines: lines.into_iter().map(ReviewTaskLogLineDto::from).collect(),
    }))
}

/// The enabled projects, for choosing where to trigger a manual review.
#[utoipa::path(responses((status = 200, body = Data<Items<ManualReviewProjectDto>>)))]
#[get("/manual/projects")]
async fn list_manual_review_projects(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let items: Vec<ManualReviewProjectDto> = state
        .projects
        .list_all()
        .await?
        .into_iter()
        .filter(|p| p.enabled)
        .map(ManualReviewProjectDto::from)
        .collect();
    Ok(envelope::ok(Items { items }))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct HistoryQuery {
    /// How many reviews (5 when absent); above 20 it is clamped to 20.
    #[param(value_type = Option<u64>, minimum = 1, maximum = 18_446_744_073_709_551_615_u64)]
    limit: Option<String>,
}

/// The newest manually triggered reviews.
#[utoipa::path(
    params(HistoryQuery),
    responses((status = 200, body = Data<Items<ReviewListItemDto>>))
)]
#[get("/manual/history")]
async fn list_manual_review_history(
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
    let items: Vec<ReviewListItemDto> = page
        .items
        .into_iter()
        .map(ReviewListItemDto::from)
        .collect();
    Ok(envelope::ok(Items { items }))
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
struct ManualMrQuery {
    /// The project whose merge requests to list.
    #[param(value_type = Uuid, required = true)]
    project_id: Option<Uuid>,
    /// Which merge requests (`opened` when absent).
    #[serde(default, deserialize_with = "super::serde_helpers::from_optional_text")]
    #[param(schema_with = mr_state_schema)]
    state: Option<MrState>,
    /// Only those the platform's search finds for this text.
    search: Option<String>,
    #[serde(flatten)]
    #[param(ignore)]
    page: PageParams,
}

/// A project's merge requests, read from its platform, for a manual review.
#[utoipa::path(
    params(ManualMrQuery, PageParams),
    responses((status = 200, body = Data<ManualMergeRequests>))
)]
#[get("/manual/merge-requests")]
async fn list_manual_merge_requests(
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
            q.state.unwrap_or(MrState::Opened),
            q.search.as_deref(),
            page,
        )
        .await?;
    Ok(envelope::ok(ManualMergeRequests {
        items: mrs.items.into_iter().map(MergeRequestDto::from).collect(),
        has_next: mrs.has_next,
    }))
}

/// The review templates (without their text).
#[utoipa::path(responses((status = 200, body = Data<ReviewTemplates>)))]
#[get("/templates/all")]
async fn list_review_templates(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let templates = state.history.templates().await?;
    Ok(envelope::ok(ReviewTemplates {
        templates: templates.into_iter().map(ReviewTemplateDto::from).collect(),
    }))
}

/// The review rules, highest priority first.
#[utoipa::path(responses((status = 200, body = Data<ReviewRules>)))]
#[get("/rules/all")]
async fn list_review_rules(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let rules = state.history.rules().await?;
    Ok(envelope::ok(ReviewRules {
        rules: rules.into_iter().map(ReviewRuleDto::from).collect(),
    }))
}
