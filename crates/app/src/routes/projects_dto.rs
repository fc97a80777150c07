//! The response shapes of `/api/projects`: mirrors of the domain's projects, their
//! stats, resolved settings, recent activity and live platform views.

use crate::envelope::Items;
use crate::openapi::string_enum;
use chrono::{DateTime, Utc};
use reviewd_domain::model::{
    PipelineEntry, PlatformPage, PlatformProject, PlatformType, Project, ProjectStats,
    ReviewSummary, WebhookStatus,
};
use reviewd_domain::services::{ResolvedProjectConfig, SyncFailure, VerifySummary, WebhookResult};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
use uuid::Uuid;

/// `hostA` (GitLab-compatible) or `hostB` (GitHub-compatible).
pub(super) fn platform_type_schema() -> utoipa::openapi::Object {
    string_enum(PlatformType::ALL.iter().map(|t| t.as_str()))
}

/// A webhook status, or `null` when no webhook is configured.
fn nullable_webhook_status_schema() -> utoipa::openapi::Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .enum_values(Some(
            WebhookStatus::ALL
                .iter()
                .map(|s| serde_json::Value::from(s.as_str()))
                .chain([serde_json::Value::Null]),
        ))
        .description(Some(
            "The webhook's state on the platform; `null` when none is configured.",
        ))
        .build()
}

/// A project synced from its platform, with its review settings (`null` settings
/// inherit the global value) and its webhook's state.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectDto {
    id: Uuid,
    name: String,
    full_path: String,
    web_url: String,
    #[schema(schema_with = platform_type_schema)]
    platform_type: &'static str,
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
    #[schema(schema_with = nullable_webhook_status_schema)]
    webhook_status: Option<&'static str>,
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
            platform_type: p.platform_type.as_str(),
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
            webhook_status: p.webhook_status.map(WebhookStatus::as_str),
            webhook_id: p.webhook_id,
            webhook_url: p.webhook_url,
            webhook_checked_at: p.webhook_checked_at,
            last_synced_at: p.last_synced_at,
            created_at: p.created_at,
            updated_at: p.updated_at,
        }
    }
}

/// `{"project": {...}}`: the project after a change.
#[derive(Serialize, ToSchema)]
pub struct ProjectBody {
    pub project: ProjectDto,
}

/// `{"project": {...}, "success": true}`: the project after a webhook action.
#[derive(Serialize, ToSchema)]
pub struct ProjectWebhookAction {
    pub project: ProjectDto,
    pub success: bool,
}

/// Aggregates over all projects.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectStatsDto {
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
}

impl From<ProjectStats> for ProjectStatsDto {
    fn from(s: ProjectStats) -> Self {
        ProjectStatsDto {
            total: s.total,
            enabled: s.enabled,
            disabled: s.disabled,
            host_a: s.host_a,
            host_b: s.host_b,
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
        }
    }
}

/// `{"stats": {...}}`.
#[derive(Serialize, ToSchema)]
pub struct ProjectStatsBody {
    pub stats: ProjectStatsDto,
}

/// One project a sync could not store.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SyncFailureDto {
    platform_project_id: String,
    full_path: String,
    error: String,
}

impl From<SyncFailure> for SyncFailureDto {
    fn from(f: SyncFailure) -> Self {
        SyncFailureDto {
            platform_project_id: f.platform_project_id,
            full_path: f.full_path,
            error: f.error,
        }
    }
}

/// What a sync stored: `synced` of the platform's `total` projects, and why the
/// others failed.
#[derive(Serialize, ToSchema)]
pub struct ProjectSyncReport {
    pub errors: Vec<SyncFailureDto>,
    pub synced: usize,
    pub total: usize,
}

/// A project's settings with the global values it inherits filled in; each
/// `...Inherited` says whether the value came from the global settings.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedProjectConfigDto {
    project_id: Uuid,
    enabled: bool,
    auto_review: bool,
    auto_review_inherited: bool,
    file_ignore_patterns: Vec<String>,
    file_ignore_patterns_inherited: bool,
    /// The project's AI configuration, else the stored default; `null` means the
    /// environment's configuration.
    ai_config_id: Option<Uuid>,
    ai_config_inherited: bool,
    send_to_platform: bool,
    default_reviewer_ids: Vec<String>,
    auto_assign_author: bool,
    template_id: Option<Uuid>,
    review_commands: Vec<String>,
}

impl From<ResolvedProjectConfig> for ResolvedProjectConfigDto {
    fn from(c: ResolvedProjectConfig) -> Self {
        ResolvedProjectConfigDto {
            project_id: c.project_id,
            enabled: c.enabled,
            auto_review: c.auto_review,
            auto_review_inherited: c.auto_review_inherited,
            file_ignore_patterns: c.file_ignore_patterns,
            file_ignore_patterns_inherited: c.file_ignore_patterns_inherited,
            ai_config_id: c.ai_config_id,
            ai_config_inherited: c.ai_config_inherited,
            send_to_platform: c.send_to_platform,
            default_reviewer_ids: c.default_reviewer_ids,
            auto_assign_author: c.auto_assign_author,
            template_id: c.template_id,
            review_commands: c.review_commands,
        }
    }
}

/// `{"config": {...}}`.
#[derive(Serialize, ToSchema)]
pub struct ResolvedProjectConfigBody {
    pub config: ResolvedProjectConfigDto,
}

/// A review as listed in a project's workspace.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectReviewSummaryDto {
    id: Uuid,
    mr_iid: i64,
    mr_title: String,
    mr_url: String,
    status: String,
    overall_rating: Option<String>,
    comment_count: i32,
    triggered_by: String,
    created_at: DateTime<Utc>,
    completed_at: Option<DateTime<Utc>>,
}

impl From<ReviewSummary> for ProjectReviewSummaryDto {
    fn from(r: ReviewSummary) -> Self {
        ProjectReviewSummaryDto {
            id: r.id,
            mr_iid: r.mr_iid,
            mr_title: r.mr_title,
            mr_url: r.mr_url,
            status: r.status,
            overall_rating: r.overall_rating,
            comment_count: r.comment_count,
            triggered_by: r.triggered_by,
            created_at: r.created_at,
            completed_at: r.completed_at,
        }
    }
}

/// One review task of a project's pipeline history.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectPipelineDto {
    id: Uuid,
    review_id: Option<Uuid>,
    mr_iid: i64,
    head_sha: Option<String>,
    /// The task's status (`queued`, `processing`, `completed`, `failed`...).
    status: String,
    /// `auto` or `manual`.
    triggered_by: String,
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
            review_id: p.review_id,
            mr_iid: p.mr_iid,
            head_sha: p.head_sha,
            status: p.status,
            triggered_by: p.triggered_by,
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
pub struct ProjectWorkspaceDto {
    pub pipelines: Vec<ProjectPipelineDto>,
    pub project: ProjectDto,
    pub recent_reviews: Vec<ProjectReviewSummaryDto>,
}

/// `{"workspace": {...}}`.
#[derive(Serialize, ToSchema)]
pub struct ProjectWorkspaceBody {
    pub workspace: ProjectWorkspaceDto,
}

/// The project (hostA) or repository (hostB) as its platform describes it now.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectOnPlatformDto {
    id: String,
    name: String,
    full_path: String,
    web_url: String,
    default_branch: Option<String>,
    visibility: Option<String>,
    #[schema(schema_with = platform_type_schema)]
    platform_type: &'static str,
}

impl From<PlatformProject> for ProjectOnPlatformDto {
    fn from(p: PlatformProject) -> Self {
        ProjectOnPlatformDto {
            id: p.id,
            name: p.name,
            full_path: p.full_path,
            web_url: p.web_url,
            default_branch: p.default_branch,
            visibility: p.visibility,
            platform_type: p.platform_type.as_str(),
        }
    }
}

/// `{"project": {...}}`: the live platform view.
#[derive(Serialize, ToSchema)]
pub struct ProjectOnPlatformBody {
    pub project: ProjectOnPlatformDto,
}

/// Where a page read live from a platform stands: the total (and so the page count)
/// only when the platform tells it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlatformPagination {
    has_next: bool,
    page: u32,
    page_size: u32,
    total: Option<u64>,
    total_pages: Option<u64>,
}

#[derive(Serialize, ToSchema)]
pub struct PlatformPageMeta {
    pagination: PlatformPagination,
}

/// `{"data": {"items": [T]}, "meta": {"pagination": {...}}}` for a list read live
/// from the platform.
#[derive(Serialize, ToSchema)]
pub struct PlatformPaginated<T> {
    data: Items<T>,
    meta: PlatformPageMeta,
}

impl<T> PlatformPaginated<T> {
    pub fn of<D>(page: PlatformPage<D>, to_dto: impl FnMut(D) -> T) -> Self {
        let total_pages = page
            .total
            .map(|t| t.div_ceil(u64::from(page.per_page.max(1))));
        PlatformPaginated {
            data: Items {
                items: page.items.into_iter().map(to_dto).collect(),
            },
            meta: PlatformPageMeta {
                pagination: PlatformPagination {
                    has_next: page.has_next,
                    page: page.page,
                    page_size: page.per_page,
                    total: page.total,
                    total_pages,
                },
            },
        }
    }
}

/// The outcome of one project of a webhook batch.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookResultDto {
    project_id: Uuid,
    success: bool,
    webhook_id: Option<String>,
    webhook_url: Option<String>,
    error: Option<String>,
}

impl From<WebhookResult> for WebhookResultDto {
    fn from(r: WebhookResult) -> Self {
        WebhookResultDto {
            project_id: r.project_id,
            success: r.success,
            webhook_id: r.webhook_id,
            webhook_url: r.webhook_url,
            error: r.error,
        }
    }
}

/// How many projects got their webhook (`success`) and how many did not, with each
/// project's outcome.
#[derive(Serialize, ToSchema)]
pub struct WebhookBatchReport {
    pub failed: usize,
    pub results: Vec<WebhookResultDto>,
    pub success: usize,
}

/// Counts of a verification pass over every project's webhook.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookVerifySummaryDto {
    checked: u64,
    active: u64,
    inactive: u64,
    error: u64,
    unknown: u64,
    not_configured: u64,
}

impl From<VerifySummary> for WebhookVerifySummaryDto {
    fn from(s: VerifySummary) -> Self {
        WebhookVerifySummaryDto {
            checked: s.checked,
            active: s.active,
            inactive: s.inactive,
            error: s.error,
            unknown: s.unknown,
            not_configured: s.not_configured,
        }
    }
}

/// The projects deleted by a batch, and the ids that matched none.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectsDeleted {
    pub deleted: usize,
    pub deleted_ids: Vec<Uuid>,
    pub not_found: Vec<Uuid>,
    pub success: bool,
}
