//! `/api/projects`: synced projects, their settings, live platform views and webhooks.

use super::dto::{MergeRequestDto, PlatformUserDto};
use super::projects_dto::{
    PlatformPaginated, ProjectBody, ProjectDto, ProjectOnPlatformBody, ProjectOnPlatformDto,
    ProjectPipelineDto, ProjectReviewSummaryDto, ProjectStatsBody, ProjectStatsDto,
    ProjectSyncReport, ProjectWebhookAction, ProjectWorkspaceBody, ProjectWorkspaceDto,
    ProjectsDeleted, ResolvedProjectConfigBody, ResolvedProjectConfigDto, SyncFailureDto,
    WebhookBatchReport, WebhookResultDto, WebhookVerifySummaryDto, platform_type_schema,
};
use super::serde_helpers::double_option;
use crate::envelope::{self, Data, Items, Paginated, Success};
use crate::error::ApiError;
use crate::extract::{AuthUser, PageParams, RequirePermission, ValidatedJson, one_of, perm};
use crate::openapi::string_enum;
use crate::state::AppState;
use actix_web::{HttpResponse, delete, get, patch, post, web};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::{
    MrState, PipelineFilter, PlatformType, ProjectFilter, ProjectSettingsChanges, WebhookStatus,
    WebhookStatusFilter,
};
use serde::Deserialize;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, SchemaType, Type};
use utoipa::{IntoParams, ToSchema};
use utoipa_actix_web::{scope, service_config::ServiceConfig};
use uuid::Uuid;
use validator::Validate;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        scope("/projects")
            .service(list_projects)
            .service(list_projects_paginated)
            .service(get_project_stats)
            .service(sync_projects)
            .service(create_project_webhooks)
            .service(remove_project_webhook)
            .service(verify_project_webhooks)
            .service(delete_projects)
            .service(update_project)
            .service(delete_project)
            .service(get_project_config)
            .service(get_project_workspace)
            .service(get_project_platform)
            .service(list_project_members)
            .service(list_project_merge_requests)
            .service(list_project_pipelines)
            .service(clear_project_webhook),
    );
}

/// Every project, unpaginated (the dashboard's pickers).
#[utoipa::path(responses((status = 200, body = Data<Items<ProjectDto>>)))]
#[get("")]
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
    #[serde(default, deserialize_with = "super::serde_helpers::from_optional_text")]
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
async fn list_projects_paginated(
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
async fn get_project_stats(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(ProjectStatsBody {
        stats: ProjectStatsDto::from(state.projects.stats().await?),
    }))
}

#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SyncProjectsBody {
    /// The platform config whose projects are fetched.
    platform_config_id: Uuid,
}

/// Fetches every project of a platform config and stores them: new ones added, known
/// ones refreshed with their settings kept.
#[utoipa::path(
    request_body = SyncProjectsBody,
    responses((status = 200, body = Data<ProjectSyncReport>))
)]
#[post("/sync/platform")]
async fn sync_projects(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectCreate>,
    body: ValidatedJson<SyncProjectsBody>,
) -> Result<HttpResponse, ApiError> {
    let report = state.projects.sync(body.0.platform_config_id).await?;
    Ok(envelope::ok(ProjectSyncReport {
        errors: report
            .errors
            .into_iter()
            .map(SyncFailureDto::from)
            .collect(),
        synced: report.synced,
        total: report.total,
    }))
}

/// A text the service refuses when it is empty or only whitespace (`str::trim`):
/// at least one character outside Unicode's `White_Space`.
/// Not blank once trimmed (Unicode white space), and no NUL anywhere.
const NOT_BLANK: &str = "^[^\\u0000]*[^\\u0000\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\u0000]*$";

/// `fileIgnorePatterns`: `null` (inherit the global patterns) or up to 200 globs,
/// each non-blank and at most 500 characters.
fn file_ignore_patterns_schema() -> utoipa::openapi::schema::Array {
    ArrayBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
        .items(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .min_length(Some(1))
                .max_length(Some(500))
                .pattern(Some(NOT_BLANK)),
        )
        .max_items(Some(200))
        .description(Some(
            "Glob patterns of files the review skips (at most 200, each non-blank and at \
             most 500 bytes); `null` returns to the global patterns.",
        ))
        .build()
}

/// `defaultReviewerIds`: up to 50 non-blank platform user ids.
fn default_reviewer_ids_schema() -> utoipa::openapi::schema::Array {
    ArrayBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
        .items(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .min_length(Some(1))
                .pattern(Some(NOT_BLANK)),
        )
        .max_items(Some(50))
        .description(Some(
            "Platform user ids assigned as reviewers of reviewed merge requests (at most \
             50, each non-blank); `null` or absent keeps the stored list.",
        ))
        .build()
}

/// The settings to change; an absent field is kept. For `autoReview`,
/// `fileIgnorePatterns` and `aiConfigId`, `null` returns to the global value.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct UpdateProjectBody {
    /// Whether webhooks of this project trigger anything at all.
    enabled: Option<bool>,
    /// Review every new head automatically; `null` inherits the global setting.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<bool>, nullable)]
    auto_review: Option<Option<bool>>,
    #[serde(default, deserialize_with = "double_option")]
    #[validate(length(max = 200, message = "at most 200 patterns"))]
    #[schema(schema_with = file_ignore_patterns_schema)]
    file_ignore_patterns: Option<Option<Vec<String>>>,
    /// An existing AI configuration; `null` inherits the default one.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<Uuid>, nullable)]
    ai_config_id: Option<Option<Uuid>>,
    #[validate(length(max = 50, message = "at most 50 reviewers"))]
    #[schema(schema_with = default_reviewer_ids_schema)]
    default_reviewer_ids: Option<Vec<String>>,
    /// Assign merge requests to their author when reviewed.
    auto_assign_author: Option<bool>,
}

/// Changes a project's review settings; answers the project as stored.
#[utoipa::path(
    request_body = UpdateProjectBody,
    responses((status = 200, body = Data<ProjectBody>))
)]
#[patch("/{id}")]
async fn update_project(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectUpdate>,
    id: web::Path<Uuid>,
    body: ValidatedJson<UpdateProjectBody>,
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
    Ok(envelope::ok(ProjectBody {
        project: ProjectDto::from(project),
    }))
}

/// A project's settings with the global values it inherits filled in.
#[utoipa::path(responses((status = 200, body = Data<ResolvedProjectConfigBody>)))]
#[get("/{id}/config")]
async fn get_project_config(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(ResolvedProjectConfigBody {
        config: ResolvedProjectConfigDto::from(state.projects.resolved_config(*id).await?),
    }))
}

/// A project with its ten latest reviews and review tasks.
#[utoipa::path(responses((status = 200, body = Data<ProjectWorkspaceBody>)))]
#[get("/{id}/workspace")]
async fn get_project_workspace(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let workspace = state.projects.workspace(*id).await?;
    let project = state.projects.get(*id).await?;
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

/// The project as its platform describes it now (read live).
#[utoipa::path(responses((status = 200, body = Data<ProjectOnPlatformBody>)))]
#[get("/{id}/platform")]
async fn get_project_platform(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(ProjectOnPlatformBody {
        project: ProjectOnPlatformDto::from(state.projects.platform_details(*id).await?),
    }))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ProjectMembersQuery {
    /// Only members whose name or username contains this (the platform's search).
    search: Option<String>,
    #[serde(flatten)]
    #[param(ignore)]
    page: PageParams,
}

/// The project's members on its platform (read live); the total only when the
/// platform tells it.
#[utoipa::path(
    params(ProjectMembersQuery, PageParams),
    responses((status = 200, body = PlatformPaginated<PlatformUserDto>))
)]
#[get("/{id}/members")]
async fn list_project_members(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
    query: web::Query<ProjectMembersQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = query.page.to_request(20, 100)?;
    let members = state
        .projects
        .members(*id, query.search.as_deref(), page)
        .await?;
    Ok(HttpResponse::Ok().json(PlatformPaginated::of(members, PlatformUserDto::from)))
}

/// `opened` (the default), `merged`, `closed` or `all`.
fn mr_state_schema() -> utoipa::openapi::Object {
    string_enum(MrState::ALL.map(MrState::as_str))
}

/// `MrState`'s wire names, in the order of `MrState::ALL`.

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ProjectMergeRequestsQuery {
    /// `opened` when absent.
    #[serde(default, deserialize_with = "super::serde_helpers::from_optional_text")]
    #[param(schema_with = mr_state_schema)]
    state: Option<MrState>,
    /// Only merge requests whose title or description contains this.
    search: Option<String>,
    #[serde(flatten)]
    #[param(ignore)]
    page: PageParams,
}

/// The project's merge requests (pull requests on hostB) on its platform, read live.
#[utoipa::path(
    params(ProjectMergeRequestsQuery, PageParams),
    responses((status = 200, body = PlatformPaginated<MergeRequestDto>))
)]
#[get("/{id}/merge-requests")]
async fn list_project_merge_requests(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
    query: web::Query<ProjectMergeRequestsQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = query.page.to_request(20, 100)?;
    let mr_state = query.state.unwrap_or(MrState::Opened);
    let merge_requests = state
        .projects
        .merge_requests(*id, mr_state, query.search.as_deref(), page)
        .await?;
    Ok(HttpResponse::Ok().json(PlatformPaginated::of(merge_requests, MergeRequestDto::from)))
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
async fn list_project_pipelines(
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
        .pipelines(*id, &filter, query.page.to_request(20, 100)?)
        .await?;
    Ok(envelope::paginated(page, ProjectPipelineDto::from))
}

#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CreateWebhooksBody {
    /// The projects to register the webhook on (1 to 500).
    #[validate(length(min = 1, max = 500, message = "must list 1 to 500 project ids"))]
    #[schema(min_items = 1, max_items = 500)]
    project_ids: Vec<Uuid>,
    /// Where the platform delivers; the server's own receiver when absent.
    #[validate(url(message = "must be a URL"))]
    #[schema(format = "uri")]
    webhook_url: Option<String>,
}

/// Registers the webhook on each project's platform (reusing one already pointing
/// here); failures are reported per project, not as an error.
#[utoipa::path(
    request_body = CreateWebhooksBody,
    responses((status = 200, body = Data<WebhookBatchReport>))
)]
#[post("/webhooks/batch")]
async fn create_project_webhooks(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectUpdate>,
    body: ValidatedJson<CreateWebhooksBody>,
) -> Result<HttpResponse, ApiError> {
    let results = state
        .webhooks
        .create_many(&body.0.project_ids, body.0.webhook_url.as_deref())
        .await?;
    let success = results.iter().filter(|r| r.success).count();
    Ok(envelope::ok(WebhookBatchReport {
        failed: results.len() - success,
        results: results.into_iter().map(WebhookResultDto::from).collect(),
        success,
    }))
}

#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RemoveWebhookBody {
    project_id: Uuid,
}

/// Deletes the project's webhook from its platform and forgets it.
#[utoipa::path(
    request_body = RemoveWebhookBody,
    responses((status = 200, body = Data<ProjectWebhookAction>))
)]
#[post("/webhooks/remove")]
async fn remove_project_webhook(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectUpdate>,
    body: ValidatedJson<RemoveWebhookBody>,
) -> Result<HttpResponse, ApiError> {
    let project = state.webhooks.remove(body.0.project_id).await?;
    Ok(envelope::ok(ProjectWebhookAction {
        project: ProjectDto::from(project),
        success: true,
    }))
}

/// Checks every configured webhook on its platform and stores each one's state.
#[utoipa::path(responses((status = 200, body = Data<WebhookVerifySummaryDto>)))]
#[post("/webhooks/verify")]
async fn verify_project_webhooks(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectUpdate>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(WebhookVerifySummaryDto::from(
        state.webhooks.verify_all().await?,
    )))
}

/// Forgets the project's webhook without calling the platform (one deleted there
/// by hand).
#[utoipa::path(responses((status = 200, body = Data<ProjectWebhookAction>)))]
#[post("/{id}/webhook/clear")]
async fn clear_project_webhook(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectUpdate>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let project = state.webhooks.clear(*id).await?;
    Ok(envelope::ok(ProjectWebhookAction {
        project: ProjectDto::from(project),
        success: true,
    }))
}

/// Deletes a project and its reviews; the platform's project is not touched.
#[utoipa::path(responses((status = 200, body = Data<Success>)))]
#[delete("/{id}")]
async fn delete_project(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectDelete>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    state.projects.delete(*id).await?;
    Ok(envelope::success())
}

#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct DeleteProjectsBody {
    /// The projects to delete (1 to 1000); unknown ids are listed in `notFound`.
    #[validate(length(min = 1, max = 1000, message = "must list 1 to 1000 project ids"))]
    #[schema(min_items = 1, max_items = 1000)]
    project_ids: Vec<Uuid>,
}

/// Deletes those of the listed projects that exist.
#[utoipa::path(
    request_body = DeleteProjectsBody,
    responses((status = 200, body = Data<ProjectsDeleted>))
)]
#[post("/delete/batch")]
async fn delete_projects(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectDelete>,
    body: ValidatedJson<DeleteProjectsBody>,
) -> Result<HttpResponse, ApiError> {
    let deleted = state.projects.delete_many(&body.0.project_ids).await?;
    let not_found: Vec<Uuid> = body
        .0
        .project_ids
        .iter()
        .filter(|id| !deleted.contains(id))
        .copied()
        .collect();
    Ok(envelope::ok(ProjectsDeleted {
        deleted: deleted.len(),
        deleted_ids: deleted,
        not_found,
        success: true,
    }))
}
