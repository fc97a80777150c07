//! `/api/projects/{id}/merge-requests/{iid}/conversations`: what people said to
//! reviewd in one merge request, what it told them, and the MR's controls.

use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::AuthUser;
use crate::field_schemas::string_enum;
use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use chrono::{DateTime, Utc};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::conversation::{
    Addressed, Conversation, ConversationStatus, MrControls,
};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

fn conversation_status_schema() -> utoipa::openapi::Object {
    string_enum(ConversationStatus::ALL.iter().map(|s| s.as_str()))
}

fn addressed_schema() -> utoipa::openapi::Object {
    string_enum(Addressed::ALL.iter().map(|s| s.as_str()))
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
#[utoipa::path(
    params(
        ("id" = Uuid, Path, description = "The project"),
        ("iid" = i64, Path, minimum = 1, description = "The merge request's number in the project")
    ),
    responses((status = 200, body = Data<MrConversations>))
)]
#[get("/{id}/merge-requests/{iid}/conversations")]
pub(super) async fn list_conversations(
    state: web::Data<AppState>,
    _user: AuthUser,
    path: web::Path<(Uuid, i64)>,
) -> Result<HttpResponse, ApiError> {
    let (id, iid) = path.into_inner();
    if iid < 1 {
        return Err(ApiError::bad_request(
            ErrorCode::ValidationFailed,
            "the merge request number must be 1 or more",
        ));
    }
    let project = state.projects.get(ProjectId(id)).await?;
    let controls = state.talk.controls(project.id, iid).await?;
    let conversations = state.talk.for_mr(project.id, iid).await?;
    Ok(envelope::ok(MrConversations {
        controls: controls.into(),
        conversations: conversations.into_iter().map(Into::into).collect(),
    }))
}
