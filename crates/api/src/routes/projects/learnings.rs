//! `/api/projects/{id}/learnings`: the lessons sent with a project's prompts.

use crate::envelope::{self, Data, Success};
use crate::error::ApiError;
use crate::extract::{AuthUser, RequirePermission, ValidatedJson, perm};
use crate::field_schemas::string_enum;
use crate::state::AppState;
use actix_web::{HttpResponse, delete, get, patch, post, web};
use chrono::{DateTime, Utc};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::conversation::{Learning, LearningSource};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;
use validator::Validate;

fn learning_source_schema() -> utoipa::openapi::Object {
    string_enum(LearningSource::ALL.iter().map(|s| s.as_str()))
}

/// A lesson of the project's, sent with each review's rules and each answer.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct LearningDto {
    id: Uuid,
    project_id: Uuid,
    text: String,
    /// `command` (`/reviewd remember`), `model` (offered in a thread) or `api`.
    #[schema(schema_with = learning_source_schema)]
    source: &'static str,
    /// Who taught it: a platform username, or the dashboard user's.
    author: Option<String>,
    /// The merge request it was learnt in.
    mr_iid: Option<i64>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

impl From<Learning> for LearningDto {
    fn from(l: Learning) -> Self {
        LearningDto {
            id: l.id,
            project_id: l.project_id.into(),
            text: l.text,
            source: l.source.as_str(),
            author: l.author,
            mr_iid: l.mr_iid,
            created_at: l.created_at,
            updated_at: l.updated_at,
        }
    }
}

/// A learning's text.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
struct LearningBody {
    /// 1 to 2000 characters (spaces around it are dropped).
    #[validate(length(min = 1, max = 2000, message = "must be 1 to 2000 characters"))]
    #[schema(min_length = 1, max_length = 2000)]
    text: String,
}

/// The project's learnings, oldest first.
#[utoipa::path(responses((status = 200, body = Data<Vec<LearningDto>>)))]
#[get("/{id}/learnings")]
pub(super) async fn list_learnings(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let learnings = state.talk.learnings(ProjectId(*id)).await?;
    Ok(envelope::ok(
        learnings
            .into_iter()
            .map(LearningDto::from)
            .collect::<Vec<_>>(),
    ))
}

/// Adds a learning to the project.
#[utoipa::path(
    request_body = LearningBody,
    responses((status = 201, body = Data<LearningDto>))
)]
#[post("/{id}/learnings")]
pub(super) async fn create_learning(
    state: web::Data<AppState>,
    user: RequirePermission<perm::ProjectUpdate>,
    id: web::Path<Uuid>,
    body: ValidatedJson<LearningBody>,
) -> Result<HttpResponse, ApiError> {
    let author = user.0.user.name.clone();
    let learning = state
        .talk
        .add_learning(ProjectId(*id), &body.0.text, &author)
        .await?;
    Ok(envelope::created(LearningDto::from(learning)))
}

/// Rewrites a learning.
#[utoipa::path(
    request_body = LearningBody,
    responses((status = 200, body = Data<LearningDto>))
)]
#[patch("/{id}/learnings/{learning_id}")]
pub(super) async fn update_learning(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectUpdate>,
    path: web::Path<(Uuid, Uuid)>,
    body: ValidatedJson<LearningBody>,
) -> Result<HttpResponse, ApiError> {
    let (id, learning_id) = path.into_inner();
    let learning = state
        .talk
        .edit_learning(ProjectId(id), learning_id, &body.0.text)
        .await?;
    Ok(envelope::ok(LearningDto::from(learning)))
}

/// Deletes a learning: later prompts no longer carry it.
#[utoipa::path(responses((status = 200, body = Data<Success>)))]
#[delete("/{id}/learnings/{learning_id}")]
pub(super) async fn delete_learning(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectUpdate>,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let (id, learning_id) = path.into_inner();
    state
        .talk
        .delete_learning(ProjectId(id), learning_id)
        .await?;
    Ok(envelope::success())
}
