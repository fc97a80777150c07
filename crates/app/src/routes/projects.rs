//! `/api/projects`: synced projects, their settings, live platform views and webhooks.

use super::serde_helpers::double_option;
use crate::envelope;
use crate::error::ApiError;
use crate::extract::{AuthUser, PageParams, RequirePermission, ValidatedJson, one_of, perm};
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use chrono::{DateTime, Utc};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::{
    MrState, PipelineFilter, PlatformPage, PlatformType, Project, ProjectFilter,
    ProjectSettingsChanges, WebhookStatus, WebhookStatusFilter,
};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa_actix_web::{scope, service_config::ServiceConfig};
use uuid::Uuid;
use validator::Validate;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(scope(
        web::scope("/projects")
            .route("", web::get().to(list_projects))
            .route("/paginated", web::get().to(list_projects_paginated))
            .route("/stats", web::get().to(project_stats))
            .route("/sync/platform", web::post().to(sync_projects))
            .route("/webhooks/batch", web::post().to(create_webhooks))
            .route("/webhooks/remove", web::post().to(remove_webhook))
            .route("/webhooks/verify", web::post().to(verify_webhooks))
            .route("/delete/batch", web::post().to(delete_projects))
            .route("/{id}", web::patch().to(update_project))
            .route("/{id}", web::delete().to(delete_project))
            .route("/{id}/config", web::get().to(project_config))
            .route("/{id}/workspace", web::get().to(project_workspace))
            .route("/{id}/platform", web::get().to(project_platform))
            .route("/{id}/members", web::get().to(project_members))
            .route(
                "/{id}/merge-requests",
                web::get().to(project_merge_requests),
            )
            .route("/{id}/pipelines", web::get().to(project_pipelines))
            .route("/{id}/webhook/clear", web::post().to(clear_webhook)),
    ));
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectDto {
    id: Uuid,
    name: String,
    full_path: String,
    web_url: String,
    platform_type: PlatformType,
    platform_config_id: Uuid,
    platform_project_id: String,
    default_branch: Option<String>,
    visibility: Option<String>,
    enabled: bool,
    auto_review: Option<bool>,
    file_ignore_patterns: Option<Vec<String>>,
    ai_config_id: Option<Uuid>,
    send_to_platform: Option<bool>,
    default_reviewer_ids: Vec<String>,
    auto_assign_author: bool,
    template_id: Option<Uuid>,
    webhook_status: Option<WebhookStatus>,
    webhook_id: Option<String>,
    webhook_url: Option<String>,
    webhook_checked_at: Option<DateTime<Utc>>,
    last_synced_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

impl From<Project> for ProjectDto {
    fn from(p: Project) -> Self {
        ProjectDto {
            id: p.id,
            name: p.name,
            full_path: p.full_path,
            web_url: p.web_url,
            platform_type: p.platform_type,
            platform_config_id: p.platform_config_id,
            platform_project_id: p.platform_project_id,
            default_branch: p.default_branch,
            visibility: p.visibility,
            enabled: p.enabled,
            auto_review: p.auto_review,
            file_ignore_patterns: p.file_ignore_patterns,
            ai_config_id: p.ai_config_id,
            send_to_platform: p.send_to_platform,
            default_reviewer_ids: p.default_reviewer_ids,
            auto_assign_author: p.auto_assign_author,
            template_id: p.template_id,
            webhook_status: p.webhook_status,
            webhook_id: p.webhook_id,
            webhook_url: p.webhook_url,
            webhook_checked_at: p.webhook_checked_at,
            last_synced_at: p.last_synced_at,
            created_at: p.created_at,
            updated_at: p.updated_at,
        }
    }
}

/// A page read live from a platform: its total is known only on some platforms.
fn platform_page<T: Serialize>(page: PlatformPage<T>) -> HttpResponse {
    let total_pages = page
        .total
        .map(|t| t.div_ceil(u64::from(page.per_page.max(1))));
    HttpResponse::Ok().json(json!({
        "data": { "items": page.items },
        "meta": { "pagination": {
            "page": page.page,
            "pageSize": page.per_page,
            "total": page.total,
            "totalPages": total_pages,
            "hasNext": page.has_next,
        } },
    }))
}

async fn list_projects(
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
    Ok(envelope::ok(json!({ "items": items })))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListQuery {
    search: Option<String>,
    platform_type: Option<PlatformType>,
    platform_config_id: Option<Uuid>,
    enabled: Option<bool>,
    webhook_status: Option<String>,
    #[serde(flatten)]
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

async fn list_projects_paginated(
    state: web::Data<AppState>,
    _user: AuthUser,
    query: web::Query<ListQuery>,
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

async fn project_stats(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(
        json!({ "stats": state.projects.stats().await? }),
    ))
}

#[derive(Deserialize, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SyncBody {
    platform_config_id: Uuid,
}

async fn sync_projects(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectCreate>,
    body: ValidatedJson<SyncBody>,
) -> Result<HttpResponse, ApiError> {
    let report = state.projects.sync(body.0.platform_config_id).await?;
    Ok(envelope::ok(
        json!({ "synced": report.synced, "total": report.total, "errors": report.errors }),
    ))
}

#[derive(Deserialize, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct UpdateBody {
    enabled: Option<bool>,
    #[serde(default, deserialize_with = "double_option")]
    auto_review: Option<Option<bool>>,
    #[serde(default, deserialize_with = "double_option")]
    #[validate(length(max = 200, message = "at most 200 patterns"))]
    file_ignore_patterns: Option<Option<Vec<String>>>,
    #[serde(default, deserialize_with = "double_option")]
    ai_config_id: Option<Option<Uuid>>,
    #[validate(length(max = 50, message = "at most 50 reviewers"))]
    default_reviewer_ids: Option<Vec<String>>,
    auto_assign_author: Option<bool>,
}

async fn update_project(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectUpdate>,
    id: web::Path<Uuid>,
    body: ValidatedJson<UpdateBody>,
) -> Result<HttpResponse, ApiError> {
    let b = body.0;
    let changes = ProjectSettingsChanges {
        enabled: b.enabled,
        auto_review: b.auto_review,
        file_ignore_patterns: b.file_ignore_patterns,
        ai_config_id: b.ai_config_id,
        default_reviewer_ids: b.default_reviewer_ids,
        auto_assign_author: b.auto_assign_author,
    };
    let project = state.projects.update_settings(*id, changes).await?;
    Ok(envelope::ok(
        json!({ "project": ProjectDto::from(project) }),
    ))
}

async fn project_config(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(
        json!({ "config": state.projects.resolved_config(*id).await? }),
    ))
}

async fn project_workspace(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let workspace = state.projects.workspace(*id).await?;
    let project = state.projects.get(*id).await?;
    Ok(envelope::ok(json!({ "workspace": {
        "project": ProjectDto::from(project),
        "recentReviews": workspace.recent_reviews,
        "pipelines": workspace.recent_tasks,
    } })))
}

async fn project_platform(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(
        json!({ "project": state.projects.platform_details(*id).await? }),
    ))
}

#[derive(Deserialize)]
struct MembersQuery {
    search: Option<String>,
    #[serde(flatten)]
    page: PageParams,
}

async fn project_members(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
    query: web::Query<MembersQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = query.page.to_request(20, 100)?;
    Ok(platform_page(
        state
            .projects
            .members(*id, query.search.as_deref(), page)
            .await?,
    ))
}

#[derive(Deserialize)]
struct MergeRequestsQuery {
    state: Option<MrState>,
    search: Option<String>,
    #[serde(flatten)]
    page: PageParams,
}

async fn project_merge_requests(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
    query: web::Query<MergeRequestsQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = query.page.to_request(20, 100)?;
    let mr_state = query.state.unwrap_or(MrState::Opened);
    Ok(platform_page(
        state
            .projects
            .merge_requests(*id, mr_state, query.search.as_deref(), page)
            .await?,
    ))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PipelinesQuery {
    status: Option<String>,
    triggered_by: Option<String>,
    mr_iid: Option<String>,
    #[serde(flatten)]
    page: PageParams,
}

const PIPELINE_STATUSES: [&str; 6] = [
    "pending",
    "in_progress",
    "completed",
    "failed",
    "queued",
    "processing",
];

async fn project_pipelines(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
    query: web::Query<PipelinesQuery>,
) -> Result<HttpResponse, ApiError> {
    let status = one_of("status", query.status.as_deref(), &PIPELINE_STATUSES)?;
    let triggered_by = one_of(
        "triggeredBy",
        query.triggered_by.as_deref(),
        &["auto", "manual"],
    )?;
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
        .pipelines(*id, &filter, query.page.to_request(20, 100)?)
        .await?;
    Ok(envelope::paginated(page, |p| p))
}

#[derive(Deserialize, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct BatchWebhookBody {
    #[validate(length(min = 1, max = 500, message = "must list 1 to 500 project ids"))]
    project_ids: Vec<Uuid>,
    #[validate(url(message = "must be a URL"))]
    webhook_url: Option<String>,
}

async fn create_webhooks(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectUpdate>,
    body: ValidatedJson<BatchWebhookBody>,
) -> Result<HttpResponse, ApiError> {
    let results = state
        .webhooks
        .create_many(&body.0.project_ids, body.0.webhook_url.as_deref())
        .await?;
    let success = results.iter().filter(|r| r.success).count();
    Ok(envelope::ok(
        json!({ "success": success, "failed": results.len() - success, "results": results }),
    ))
}

#[derive(Deserialize, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RemoveWebhookBody {
    project_id: Uuid,
}

async fn remove_webhook(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectUpdate>,
    body: ValidatedJson<RemoveWebhookBody>,
) -> Result<HttpResponse, ApiError> {
    let project = state.webhooks.remove(body.0.project_id).await?;
    Ok(envelope::ok(
        json!({ "success": true, "project": ProjectDto::from(project) }),
    ))
}

async fn verify_webhooks(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectUpdate>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(state.webhooks.verify_all().await?))
}

async fn clear_webhook(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectUpdate>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let project = state.webhooks.clear(*id).await?;
    Ok(envelope::ok(
        json!({ "success": true, "project": ProjectDto::from(project) }),
    ))
}

async fn delete_project(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectDelete>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    state.projects.delete(*id).await?;
    Ok(envelope::ok(json!({ "success": true })))
}

#[derive(Deserialize, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct BatchDeleteBody {
    #[validate(length(min = 1, max = 1000, message = "must list 1 to 1000 project ids"))]
    project_ids: Vec<Uuid>,
}

async fn delete_projects(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectDelete>,
    body: ValidatedJson<BatchDeleteBody>,
) -> Result<HttpResponse, ApiError> {
    let deleted = state.projects.delete_many(&body.0.project_ids).await?;
    let not_found: Vec<&Uuid> = body
        .0
        .project_ids
        .iter()
        .filter(|id| !deleted.contains(id))
        .collect();
    Ok(envelope::ok(
        json!({ "success": true, "deleted": deleted.len(), "deletedIds": deleted, "notFound": not_found }),
    ))
}
