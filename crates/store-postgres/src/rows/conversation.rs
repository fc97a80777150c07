//! The rows of conversations, of merge requests' controls and of learnings.

use crate::error::corrupt;
use crate::schema::{conversations, learnings, merge_request_controls};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use reviewd_domain::model::conversation::{
    Addressed, CommentAuthor, Conversation, ConversationStatus, Learning, LearningSource,
    MrControls,
};
use reviewd_domain::ports::RepoError;
use uuid::Uuid;

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = conversations, check_for_backend(diesel::pg::Pg))]
pub(crate) struct ConversationRow {
    id: Uuid,
    project_id: Uuid,
    mr_iid: i64,
    note_id: String,
    thread_id: Option<String>,
    author_id: Option<String>,
    author_username: String,
    author_is_bot: bool,
    body: String,
    addressed: String,
    command: Option<String>,
    status: String,
    answer: Option<String>,
    answer_note_id: Option<String>,
    detail: Option<String>,
    created_at: DateTime<Utc>,
    answered_at: Option<DateTime<Utc>>,
}

impl TryFrom<ConversationRow> for Conversation {
    type Error = RepoError;

    fn try_from(r: ConversationRow) -> Result<Self, RepoError> {
        let named =
            |what: &str, value: &str| corrupt(format!("conversation {}: {what} `{value}`", r.id));
        Ok(Conversation {
            addressed: Addressed::parse(&r.addressed)
                .ok_or_else(|| named("addressed", &r.addressed))?,
            status: ConversationStatus::parse(&r.status)
                .ok_or_else(|| named("status", &r.status))?,
            id: r.id,
            project_id: r.project_id.into(),
            mr_iid: r.mr_iid,
            note_id: r.note_id,
            thread_id: r.thread_id,
            author: CommentAuthor {
                id: r.author_id,
                username: r.author_username,
                is_bot: r.author_is_bot,
            },
            body: r.body,
            command: r.command,
            answer: r.answer,
            answer_note_id: r.answer_note_id,
            detail: r.detail,
            created_at: r.created_at,
            answered_at: r.answered_at,
        })
    }
}

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = merge_request_controls, check_for_backend(diesel::pg::Pg))]
pub(crate) struct ControlsRow {
    paused: bool,
    ignored: bool,
    refused_at: Option<DateTime<Utc>>,
    changed_by: Option<String>,
    updated_at: DateTime<Utc>,
}

impl From<ControlsRow> for MrControls {
    fn from(r: ControlsRow) -> Self {
        MrControls {
            paused: r.paused,
            ignored: r.ignored,
            refused_at: r.refused_at,
            changed_by: r.changed_by,
            updated_at: Some(r.updated_at),
        }
    }
}

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = learnings, check_for_backend(diesel::pg::Pg))]
pub(crate) struct LearningRow {
    id: Uuid,
    project_id: Uuid,
    text: String,
    source: String,
    author: Option<String>,
    mr_iid: Option<i64>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

impl TryFrom<LearningRow> for Learning {
    type Error = RepoError;

    fn try_from(r: LearningRow) -> Result<Self, RepoError> {
        Ok(Learning {
            source: LearningSource::parse(&r.source)
                .ok_or_else(|| corrupt(format!("learning {}: source `{}`", r.id, r.source)))?,
            id: r.id,
            project_id: r.project_id.into(),
            text: r.text,
            author: r.author,
            mr_iid: r.mr_iid,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}
