//! `/api/projects`: synced projects, their settings, live platform views and webhooks.
//! The routing and the project as every response shows it are here; each file holds
//! its handlers and the shapes they answer with.

mod activity;
mod conversations;
mod delete;
mod learnings;
mod list;
mod platform;
mod sarif;
mod sarif_doc;
mod settings;
mod sync;
mod webhooks;

use crate::field_schemas::string_enum;
use activity::{get_project_workspace, list_project_pipelines};
use chrono::{DateTime, Utc};
use conversations::list_conversations;
use delete::{delete_project, delete_projects};
use learnings::{create_learning, delete_learning, list_learnings, update_learning};
use list::{get_project_stats, list_projects, list_projects_paginated};
use platform::{get_project_platform, list_project_members, list_project_merge_requests};
use reviewd_domain::model::{PlatformType, Project, WebhookStatus};
use serde::Serialize;
use settings::{get_project_config, update_project};
use sync::sync_projects;
use utoipa::ToSchema;
use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
use utoipa_actix_web::{scope, service_config::ServiceConfig};
use uuid::Uuid;
use webhooks::{
    clear_project_webhook, create_project_webhooks, remove_project_webhook, verify_project_webhooks,
};

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
            .service(clear_project_webhook)
            .service(list_learnings)
            .service(create_learning)
            .service(update_learning)
            .service(delete_learning)
            .service(list_conversations)
            .service(sarif::upload_sarif),
    );
}

/// `hostA` (GitLab-compatible) or `hostB` (GitHub-compatible).
fn platform_type_schema() -> utoipa::openapi::Object {
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
struct ProjectDto {
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
    /// USD per calendar month (UTC) before automatic reviews stop; `null` for none.
    monthly_budget: Option<f64>,
    /// Comments rejected twice on this project are not posted again.
    suppress_rejected: bool,
    /// Someone without developer access who speaks to reviewd gets one polite
    /// refusal per merge request (`true`) or silence (`false`).
    refuse_outsiders: bool,
    /// Tokens of context per prompt besides the diff; `null` inherits the server's.
    context_budget_tokens: Option<u32>,
    /// Whether reviewd posts its merge gate (a `reviewd` commit status or check run).
    gate_enabled: bool,
    /// A round graded below this fails the gate; `null` for no grade bar.
    gate_min_rating: Option<&'static str>,
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
            id: p.id.into(),
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
            monthly_budget: p.monthly_budget_usd,
            suppress_rejected: p.suppress_rejected,
            refuse_outsiders: p.refuse_outsiders,
            context_budget_tokens: p.context_budget_tokens,
            gate_enabled: p.gate_enabled,
            gate_min_rating: p.gate_min_rating.map(|r| r.as_str()),
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
