//! `/api/projects/{id}/learnings`: the lessons sent with a project's prompts, and
//! `/api/projects/{id}/merge-requests/{iid}/conversations`: what people said to
//! reviewd in one merge request, and what it told them.

use crate::envelope::{self, Data, Success};
use crate::error::ApiError;
use crate::extract::{AuthUser, RequirePermission, ValidatedJson, perm};
use crate::field_schemas::string_enum;
use crate::state::AppState;
use actix_web::{HttpResponse, delete, get, patch, post, web};
use chrono::{DateTime, Utc};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::conversation::{
    Addressed, Conversation, ConversationStatus, Learning, LearningSource, MrControls,
};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;
use validator::Validate;

fn learning_source_schema() -> utoipa::openapi::Object {
    string_enum(LearningSource::ALL.iter().map(|s| s.as_str()))
}

fn addressed_schema() -> utoipa::openapi::Object {
    string_enum(Addressed::ALL.iter().map(|s| s.as_str()))
}

fn conversation_status_schema() -> utoipa::openapi::Object {
    string_enum(ConversationStatus::ALL.iter().map(|s| s.as_str()))
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

/// A comment that spoke to reviewd, and what reviewd did.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ConversationDto {
    id: Uuid,
    /// The platform's id of the comment.
    note_id: String,
    /// Its thread (a hostA discussion id; on hostB the thread's first comment id).
    thread_id: Option<String>,
    author: String,
    author_is_bot: bool,
    body: String,
    /// How it reached reviewd: a `command`, a `mention`, a `reply` in a thread.
    #[schema(schema_with = addressed_schema)]
    addressed: &'static str,
    /// The command's word (`pause`, `ask`, `review full`...), for commands.
    command: Option<String>,
    #[schema(schema_with = conversation_status_schema)]
    status: &'static str,
    /// What reviewd answered.
    answer: Option<String>,
    answer_note_id: Option<String>,
    /// Why it was ignored or failed.
    detail: Option<String>,
    created_at: DateTime<Utc>,
    answered_at: Option<DateTime<Utc>>,
}

impl From<Conversation> for ConversationDto {
    fn from(c: Conversation) -> Self {
        ConversationDto {
            id: c.id,
            note_id: c.note_id,
            thread_id: c.thread_id,
            author: c.author.username,
            author_is_bot: c.author.is_bot,
            body: c.body,
            addressed: c.addressed.as_str(),
            command: c.command,
            status: c.status.as_str(),
            answer: c.answer,
            answer_note_id: c.answer_note_id,
            detail: c.detail,
            created_at: c.created_at,
            answered_at: c.answered_at,
        }
    }
}

/// What the team told reviewd about the merge request.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ControlsDto {
    /// No automatic reviews (`/reviewd pause`) until `/reviewd resume`.
    paused: bool,
    /// Never reviewed (`/reviewd ignore`).
    ignored: bool,
    /// When an outsider was told, once, that only developers can ask.
    refused_at: Option<DateTime<Utc>>,
    changed_by: Option<String>,
    updated_at: Option<DateTime<Utc>>,
}

impl From<MrControls> for ControlsDto {
    fn from(c: MrControls) -> Self {
        ControlsDto {
            paused: c.paused,
            ignored: c.ignored,
            refused_at: c.refused_at,
            changed_by: c.changed_by,
            updated_at: c.updated_at,
        }
    }
}

/// The merge request's controls and conversations, oldest first.
#[derive(Serialize, ToSchema)]
struct MrConversations {
    controls: ControlsDto,
    conversations: Vec<ConversationDto>,
}

/// What people said to reviewd in a merge request, and its controls.
#[utoipa::path(responses((status = 200, body = Data<MrConversations>)))]
#[get("/{id}/merge-requests/{iid}/conversations")]
pub(super) async fn list_conversations(
    state: web::Data<AppState>,
    _user: AuthUser,
    path: web::Path<(Uuid, i64)>,
) -> Result<HttpResponse, ApiError> {
    let (id, iid) = path.into_inner();
    let project = state.projects.get(ProjectId(id)).await?;
    let controls = state.talk.controls(project.id, iid).await?;
    let conversations = state.talk.for_mr(project.id, iid).await?;
    Ok(envelope::ok(MrConversations {
        controls: controls.into(),
        conversations: conversations.into_iter().map(Into::into).collect(),
    }))
}
