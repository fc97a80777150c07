//! Listing projects (all, or by page and filtered) and their aggregate counts.

use super::{ProjectDto, platform_type_schema};
use crate::envelope::{self, Data, Items, Paginated};
use crate::error::ApiError;
use crate::extract::{AuthUser, PageParams};
use crate::field_schemas::string_enum;
use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::{
    PlatformType, ProjectFilter, ProjectStats, WebhookStatus, WebhookStatusFilter,
};
use reviewd_domain::ports::FeedbackScope;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// Every project, unpaginated (the dashboard's pickers).
#[utoipa::path(responses((status = 200, body = Data<Items<ProjectDto>>)))]
#[get("")]
pub(super) async fn list_projects(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let items: Vec<ProjectDto> = state
        .projects
        .list_all()
        .await?
        .into_iter()
        .map(ProjectDto::from)
        .collect();
    Ok(envelope::ok(Items { items }))
}

/// `active`, `inactive`, `error`, `unknown`, or `not_configured` (no webhook).
fn webhook_status_filter_schema() -> utoipa::openapi::Object {
    string_enum(
        WebhookStatus::ALL
            .iter()
            .map(|s| s.as_str())
            .chain(["not_configured"]),
    )
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
struct ListProjectsQuery {
    /// Case-insensitive substring of the name or the full path.
    search: Option<String>,
    /// Only projects of this platform type.
    #[serde(
        default,
        deserialize_with = "crate::routes::serde_helpers::from_optional_text"
    )]
    #[param(schema_with = platform_type_schema)]
    platform_type: Option<PlatformType>,
    /// Only projects of this platform config.
    platform_config_id: Option<Uuid>,
    /// Only enabled (`true`) or disabled (`false`) projects.
    enabled: Option<bool>,
    /// Only projects whose webhook is in this state (`not_configured`: none).
    #[param(schema_with = webhook_status_filter_schema)]
    webhook_status: Option<String>,
    #[serde(flatten)]
    #[param(ignore)]
    page: PageParams,
}

fn webhook_filter(value: Option<&str>) -> Result<Option<WebhookStatusFilter>, ApiError> {
    match value {
        None => Ok(None),
        Some("not_configured") => Ok(Some(WebhookStatusFilter::NotConfigured)),
        Some(other) => other
            .parse()
            .map(|s| Some(WebhookStatusFilter::Is(s)))
            .map_err(|_| {
                ApiError::bad_request(
                    ErrorCode::InvalidQuery,
                    "webhookStatus must be active, inactive, error, unknown or not_configured",
                )
            }),
    }
}

/// Projects by page, filtered; 20 a page by default, at most 100.
#[utoipa::path(
    params(ListProjectsQuery, PageParams),
    responses((status = 200, body = Paginated<ProjectDto>))
)]
#[get("/paginated")]
pub(super) async fn list_projects_paginated(
    state: web::Data<AppState>,
    _user: AuthUser,
    query: web::Query<ListProjectsQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = ProjectFilter {
        search: query.search.clone(),
        platform_type: query.platform_type,
        platform_config_id: query.platform_config_id,
        enabled: query.enabled,
        webhook_status: webhook_filter(query.webhook_status.as_deref())?,
    };
    let page = state
        .projects
        .list(&filter, query.page.to_request(20, 100)?)
        .await?;
    Ok(envelope::paginated(page, ProjectDto::from))
}

/// Counts over all projects: by platform, webhook state and review outcome.
#[utoipa::path(responses((status = 200, body = Data<ProjectStatsBody>)))]
#[get("/stats")]
pub(super) async fn get_project_stats(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let mut stats = ProjectStatsDto::from(state.projects.stats().await?);
    stats.acceptance_rate = state.feedback.acceptance_rate(FeedbackScope::All).await?;
    Ok(envelope::ok(ProjectStatsBody { stats }))
}

/// Aggregates over all projects.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ProjectStatsDto {
    total: u64,
    enabled: u64,
    disabled: u64,
    host_a: u64,
    host_b: u64,
    webhook_active: u64,
    webhook_inactive: u64,
    webhook_error: u64,
    webhook_unknown: u64,
    webhook_not_configured: u64,
    auto_review_overrides: u64,
    reviews_total: u64,
    reviews_pending: u64,
    reviews_completed: u64,
    reviews_failed: u64,
    /// USD spent on AI calls, ever.
    #[schema(minimum = 0)]
    cost_usd_total: f64,
    /// USD spent on AI calls in the current calendar month (UTC).
    #[schema(minimum = 0)]
    cost_usd_this_month: f64,
    /// This month's spending per project, costliest first; projects that spent
    /// nothing are left out.
    cost_by_project: Vec<ProjectCostDto>,
    /// Of the comments readers judged on all projects, the share that helped
    /// (accepted or implemented); `null` until one is judged.
    #[schema(minimum = 0, maximum = 1)]
    acceptance_rate: Option<f64>,
}

/// One project's AI spending this month.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ProjectCostDto {
    project_id: Uuid,
    project_name: String,
    #[schema(minimum = 0)]
    cost_usd: f64,
}

impl From<ProjectStats> for ProjectStatsDto {
    fn from(s: ProjectStats) -> Self {
        ProjectStatsDto {
            total: s.total,
            enabled: s.enabled,
            disabled: s.disabled,
            host_a: s.gitlab,
            host_b: s.github,
            webhook_active: s.webhook_active,
            webhook_inactive: s.webhook_inactive,
            webhook_error: s.webhook_error,
            webhook_unknown: s.webhook_unknown,
            webhook_not_configured: s.webhook_not_configured,
            auto_review_overrides: s.auto_review_overrides,
            reviews_total: s.reviews_total,
            reviews_pending: s.reviews_pending,
            reviews_completed: s.reviews_completed,
            reviews_failed: s.reviews_failed,
            cost_usd_total: s.cost_usd_total,
            cost_usd_this_month: s.cost_usd_this_month,
            cost_by_project: s
                .cost_by_project
                .into_iter()
                .map(|c| ProjectCostDto {
                    project_id: c.project_id.into(),
                    project_name: c.project_name,
                    cost_usd: c.cost_usd,
                })
                .collect(),
            acceptance_rate: None,
        }
    }
}

/// `{"stats": {...}}`.
#[derive(Serialize, ToSchema)]
struct ProjectStatsBody {
    stats: ProjectStatsDto,
}
