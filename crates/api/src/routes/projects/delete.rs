//! Deleting one project or a batch of them.

use crate::envelope::{self, Data, Success};
use crate::error::ApiError;
use crate::extract::{RequirePermission, ValidatedJson, perm};
use crate::state::AppState;
use actix_web::{HttpResponse, delete, post, web};
use reviewd_domain::model::ProjectId;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;
use validator::Validate;

/// Deletes a project and its reviews; the platform's project is not touched.
#[utoipa::path(responses((status = 200, body = Data<Success>)))]
#[delete("/{id}")]
pub(super) async fn delete_project(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectDelete>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    state.projects.delete(ProjectId(*id)).await?;
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
pub(super) async fn delete_projects(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectDelete>,
    body: ValidatedJson<DeleteProjectsBody>,
) -> Result<HttpResponse, ApiError> {
    let asked: Vec<ProjectId> = body.0.project_ids.iter().copied().map(ProjectId).collect();
    let deleted: Vec<Uuid> = state
        .projects
        .delete_many(&asked)
        .await?
        .into_iter()
        .map(Uuid::from)
        .collect();
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

/// The projects deleted by a batch, and the ids that matched none.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ProjectsDeleted {
    deleted: usize,
    deleted_ids: Vec<Uuid>,
    not_found: Vec<Uuid>,
    success: bool,
}
