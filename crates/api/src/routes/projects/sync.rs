//! Syncing a platform config's projects into the store.

use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::{RequirePermission, ValidatedJson, perm};
use crate::state::AppState;
use actix_web::{HttpResponse, post, web};
use reviewd_domain::services::SyncFailure;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;
use validator::Validate;

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
pub(super) async fn sync_projects(
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

/// One project a sync could not store.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct SyncFailureDto {
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
struct ProjectSyncReport {
    errors: Vec<SyncFailureDto>,
    synced: usize,
    total: usize,
}
