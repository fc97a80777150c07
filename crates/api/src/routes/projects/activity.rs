//! A project's recent activity: its workspace (latest reviews and tasks) and its
//! review task history.

use super::ProjectDto;
use crate::envelope::{self, Data, Paginated};
use crate::error::ApiError;
use crate::extract::{AuthUser, PageParams, one_of};
use crate::field_schemas::string_enum;
use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use chrono::{DateTime, Utc};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::grade::Rating;
use reviewd_domain::model::{PipelineEntry, PipelineFilter, ReviewSummary};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// A project with its ten latest reviews and review tasks.
#[utoipa::path(responses((status = 200, body = Data<ProjectWorkspaceBody>)))]
#[get("/{id}/workspace")]
pub(super) async fn get_project_workspace(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let workspace = state.projects.workspace(ProjectId(*id)).await?;
    let project = state.projects.get(ProjectId(*id)).await?;
    Ok(envelope::ok(ProjectWorkspaceBody {
        workspace: ProjectWorkspaceDto {
            pipelines: workspace
                .recent_tasks
                .into_iter()
                .map(ProjectPipelineDto::from)
                .collect(),
            project: ProjectDto::from(project),
            recent_reviews: workspace
                .recent_reviews
                .into_iter()
                .map(ProjectReviewSummaryDto::from)
                .collect(),
        },
    }))
}

const PIPELINE_STATUSES: [&str; 6] = [
    "pending",
    "in_progress",
    "completed",
    "failed",
    "queued",
    "processing",
];

fn pipeline_status_schema() -> utoipa::openapi::Object {
    string_enum(PIPELINE_STATUSES)
}

const TRIGGERS: [&str; 2] = ["auto", "manual"];

fn triggered_by_schema() -> utoipa::openapi::Object {
    string_enum(TRIGGERS)
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
struct ProjectPipelinesQuery {
    /// Only tasks in this status (`pending` is `queued`, `in_progress` `processing`).
    #[param(schema_with = pipeline_status_schema)]
    status: Option<String>,
    /// Only automatic or manual reviews.
    #[param(schema_with = triggered_by_schema)]
    triggered_by: Option<String>,
    /// Only tasks of this merge request.
    #[param(
        value_type = Option<i64>,
        minimum = -9223372036854775808i64,
        maximum = 9223372036854775807i64
    )]
    mr_iid: Option<String>,
    #[serde(flatten)]
    #[param(ignore)]
    page: PageParams,
}

/// The project's review tasks, newest first; 20 a page by default, at most 100.
#[utoipa::path(
    params(ProjectPipelinesQuery, PageParams),
    responses((status = 200, body = Paginated<ProjectPipelineDto>))
)]
#[get("/{id}/pipelines")]
pub(super) async fn list_project_pipelines(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
    query: web::Query<ProjectPipelinesQuery>,
) -> Result<HttpResponse, ApiError> {
    let status = one_of("status", query.status.as_deref(), &PIPELINE_STATUSES)?;
    let triggered_by = one_of("triggeredBy", query.triggered_by.as_deref(), &TRIGGERS)?;
    let mr_iid = query
        .mr_iid
        .as_deref()
        .map(|v| {
            v.parse::<i64>().map_err(|_| {
                ApiError::bad_request(ErrorCode::InvalidQuery, "mrIid must be a number")
            })
        })
        .transpose()?;
    let filter = PipelineFilter {
        project_id: None,
        runner_id: None,
        status,
        triggered_by,
        mr_iid,
    };
    let page = state
        .projects
        .pipelines(ProjectId(*id), &filter, query.page.to_request(20, 100)?)
        .await?;
    Ok(envelope::paginated(page, ProjectPipelineDto::from))
}

/// A review as listed in a project's workspace.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ProjectReviewSummaryDto {
    id: Uuid,
    mr_iid: i64,
    mr_title: String,
    mr_url: String,
    status: &'static str,
    overall_rating: Option<&'static str>,
    comment_count: i32,
    triggered_by: &'static str,
    created_at: DateTime<Utc>,
    completed_at: Option<DateTime<Utc>>,
}

impl From<ReviewSummary> for ProjectReviewSummaryDto {
    fn from(r: ReviewSummary) -> Self {
        ProjectReviewSummaryDto {
            id: r.id.into(),
            mr_iid: r.mr_iid,
            mr_title: r.mr_title,
            mr_url: r.mr_url,
            status: r.status.as_str(),
            overall_rating: r.overall_rating.map(Rating::as_str),
            comment_count: r.comment_count,
            triggered_by: r.triggered_by.as_str(),
            created_at: r.created_at,
            completed_at: r.completed_at,
        }
    }
}

/// One review task of a project's pipeline history.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ProjectPipelineDto {
    id: Uuid,
    review_id: Option<Uuid>,
    mr_iid: i64,
    head_sha: Option<String>,
    /// The task's status (`queued`, `processing`, `completed`, `failed`...).
    status: &'static str,
    /// `auto` or `manual`.
    triggered_by: &'static str,
    attempts: i32,
    runner_id: Option<String>,
    error_message: Option<String>,
    created_at: DateTime<Utc>,
    started_at: Option<DateTime<Utc>>,
    completed_at: Option<DateTime<Utc>>,
}

impl From<PipelineEntry> for ProjectPipelineDto {
    fn from(p: PipelineEntry) -> Self {
        ProjectPipelineDto {
            id: p.id,
            review_id: p.review_id.map(Uuid::from),
            mr_iid: p.mr_iid,
            head_sha: p.head_sha,
            status: p.status.as_str(),
            triggered_by: p.triggered_by.as_str(),
            attempts: p.attempts,
            runner_id: p.runner_id,
            error_message: p.error_message,
            created_at: p.created_at,
            started_at: p.started_at,
            completed_at: p.completed_at,
        }
    }
}

/// A project with its ten latest reviews and review tasks.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ProjectWorkspaceDto {
    pipelines: Vec<ProjectPipelineDto>,
    project: ProjectDto,
    recent_reviews: Vec<ProjectReviewSummaryDto>,
}

/// `{"workspace": {...}}`.
#[derive(Serialize, ToSchema)]
struct ProjectWorkspaceBody {
    workspace: ProjectWorkspaceDto,
}
