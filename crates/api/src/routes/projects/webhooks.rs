//! Project webhooks: registering them in batch, removing, verifying and forgetting
//! them.

use super::ProjectDto;
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::{RequirePermission, ValidatedJson, perm};
use crate::state::AppState;
use actix_web::{HttpResponse, post, web};
use reviewd_domain::model::ProjectId;
use reviewd_domain::services::{VerifySummary, WebhookResult};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;
use validator::Validate;

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
pub(super) async fn create_project_webhooks(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectUpdate>,
    body: ValidatedJson<CreateWebhooksBody>,
) -> Result<HttpResponse, ApiError> {
    let ids: Vec<ProjectId> = body.0.project_ids.iter().copied().map(ProjectId).collect();
    let results = state
        .webhooks
        .create_many(&ids, body.0.webhook_url.as_deref())
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
pub(super) async fn remove_project_webhook(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectUpdate>,
    body: ValidatedJson<RemoveWebhookBody>,
) -> Result<HttpResponse, ApiError> {
    let project = state.webhooks.remove(ProjectId(body.0.project_id)).await?;
    Ok(envelope::ok(ProjectWebhookAction {
        project: ProjectDto::from(project),
        success: true,
    }))
}

/// Checks every configured webhook on its platform and stores each one's state.
#[utoipa::path(responses((status = 200, body = Data<WebhookVerifySummaryDto>)))]
#[post("/webhooks/verify")]
pub(super) async fn verify_project_webhooks(
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
pub(super) async fn clear_project_webhook(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectUpdate>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let project = state.webhooks.clear(ProjectId(*id)).await?;
    Ok(envelope::ok(ProjectWebhookAction {
        project: ProjectDto::from(project),
        success: true,
    }))
}

/// `{"project": {...}, "success": true}`: the project after a webhook action.
#[derive(Serialize, ToSchema)]
struct ProjectWebhookAction {
    project: ProjectDto,
    success: bool,
}

/// The outcome of one project of a webhook batch.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct WebhookResultDto {
    project_id: Uuid,
    success: bool,
    webhook_id: Option<String>,
    webhook_url: Option<String>,
    error: Option<String>,
}

impl From<WebhookResult> for WebhookResultDto {
    fn from(r: WebhookResult) -> Self {
        WebhookResultDto {
            project_id: r.project_id.into(),
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
struct WebhookBatchReport {
    failed: usize,
    results: Vec<WebhookResultDto>,
    success: usize,
}

/// Counts of a verification pass over every project's webhook.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct WebhookVerifySummaryDto {
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
