//! Manual reviews: triggering one, the projects and MRs to choose from, and their history.

use super::bounded;
use super::history::ReviewListItemDto;
use super::schemas::{mr_state_schema, platform_type_schema, task_location};
use super::tasks::{ReviewTaskDto, TriggeredReview, TriggeredTask};
use crate::envelope::{self, Data, Items};
use crate::error::ApiError;
use crate::extract::{AuthUser, PageParams, RequirePermission, ValidatedJson, perm};
use crate::routes::dto::MergeRequestDto;
use crate::state::AppState;
use actix_web::{HttpResponse, get, post, web};
use reviewd_domain::ErrorCode;
use reviewd_domain::PageRequest;
use reviewd_domain::model::Project;
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::review_views::ReviewFilter;
use reviewd_domain::model::{MrState, TriggeredBy};
use reviewd_domain::services::{Enqueued, ManualReviewRequest};
use serde::Deserialize;
use serde::Serialize;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;
use validator::Validate;

#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct TriggerManualReviewBody {
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
pub(super) async fn trigger_manual_review(
    state: web::Data<AppState>,
    RequirePermission(caller, _): RequirePermission<perm::ReviewCreate>,
    body: ValidatedJson<TriggerManualReviewBody>,
) -> Result<HttpResponse, ApiError> {
    let b = body.0;
    let request = ManualReviewRequest {
        project_id: b.project_id.into(),
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
pub(super) struct RecentQuery {
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
pub(super) async fn list_recent_manual_tasks(
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

/// The enabled projects, for choosing where to trigger a manual review.
#[utoipa::path(responses((status = 200, body = Data<Items<ManualReviewProjectDto>>)))]
#[get("/manual/projects")]
pub(super) async fn list_manual_review_projects(
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
pub(super) struct HistoryQuery {
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
pub(super) async fn list_manual_review_history(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<HistoryQuery>,
) -> Result<HttpResponse, ApiError> {
    let limit = bounded("limit", q.limit.as_deref(), 5, 1, 20)?;
    let filter = ReviewFilter {
        triggered_by: Some(reviewd_domain::model::TriggeredBy::Manual),
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
pub(super) struct ManualMrQuery {
    /// The project whose merge requests to list.
    #[param(value_type = Uuid, required = true)]
    project_id: Option<Uuid>,
    /// Which merge requests (`opened` when absent).
    #[serde(
        default,
        deserialize_with = "crate::routes::serde_helpers::from_optional_text"
    )]
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
pub(super) async fn list_manual_merge_requests(
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
            ProjectId(project_id),
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

// ---------------------------------------------------------------------------
// Manual reviews

/// An enabled project a manual review can be asked for.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ManualReviewProjectDto {
    id: Uuid,
    name: String,
    full_path: String,
    #[schema(schema_with = platform_type_schema)]
    platform_type: &'static str,
    web_url: String,
}

impl From<Project> for ManualReviewProjectDto {
    fn from(p: Project) -> Self {
        ManualReviewProjectDto {
            id: p.id.into(),
            name: p.name,
            full_path: p.full_path,
            platform_type: p.platform_type.as_str(),
            web_url: p.web_url,
        }
    }
}

/// A page of a project's merge requests, read from its platform.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ManualMergeRequests {
    pub items: Vec<MergeRequestDto>,
    /// Whether the platform has a next page.
    pub has_next: bool,
}
