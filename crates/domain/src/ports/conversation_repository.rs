//! Storage of conversations (comments that speak to reviewd and what it did), of
//! each merge request's controls (paused, ignored, refused once), and of a
//! project's learnings.

use super::RepoError;
use crate::model::ProjectId;
use crate::model::conversation::{
    ControlChange, Conversation, ConversationEnd, Learning, MrControls, NewConversation,
    NewLearning, RecentTalk,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

#[async_trait]
pub trait ConversationRepository: Send + Sync {
    /// Records the comment, once: the second time the same platform comment
    /// (project, note id) is recorded, the first record is returned with `false`.
    ///
    /// # Errors
    /// `NotFound` for an unknown project.
    async fn record(&self, new: NewConversation) -> Result<(Conversation, bool), RepoError>;

    /// # Errors
    /// `NotFound` for an unknown id.
    async fn get(&self, id: Uuid) -> Result<Conversation, RepoError>;

    /// Ends a conversation (answered, refused, ignored, failed). Ending one already
    /// ended changes nothing and returns `false`: an answer is recorded once.
    ///
    /// # Errors
    /// `NotFound` for an unknown id.
    async fn finish(&self, id: Uuid, end: ConversationEnd) -> Result<bool, RepoError>;

    /// The conversations of one merge request, oldest first.
    ///
    /// # Errors
    /// Store failures.
    async fn for_mr(&self, project: ProjectId, mr_iid: i64)
    -> Result<Vec<Conversation>, RepoError>;

    /// How many conversations the MR and the author started since `since`, besides
    /// `except` (the one being answered), ignored ones left out.
    ///
    /// # Errors
    /// Store failures.
    async fn recent(
        &self,
        project: ProjectId,
        mr_iid: i64,
        author: &str,
        since: DateTime<Utc>,
        except: Uuid,
    ) -> Result<RecentTalk, RepoError>;

    /// The MR's controls (all off for an MR nobody spoke of).
    ///
    /// # Errors
    /// Store failures.
    async fn controls(&self, project: ProjectId, mr_iid: i64) -> Result<MrControls, RepoError>;

    /// Applies a change: `Pause`/`Resume` set `paused`, `Ignore` sets `ignored`.
    ///
    /// # Errors
    /// `NotFound` for an unknown project.
    async fn change_controls(
        &self,
        project: ProjectId,
        mr_iid: i64,
        change: ControlChange,
        by: &str,
    ) -> Result<MrControls, RepoError>;

    /// Notes that an outsider was refused on the MR; `false` when one was before
    /// (the refusal is given once per MR, however many ask at once).
    ///
    /// # Errors
    /// `NotFound` for an unknown project.
    async fn note_refusal(&self, project: ProjectId, mr_iid: i64) -> Result<bool, RepoError>;
}

#[async_trait]
pub trait LearningRepository: Send + Sync {
    /// A project's learnings, oldest first.
    ///
    /// # Errors
    /// Store failures.
    async fn learnings(&self, project: ProjectId) -> Result<Vec<Learning>, RepoError>;

    /// # Errors
    /// `NotFound` for an unknown project.
    async fn add_learning(&self, new: NewLearning) -> Result<Learning, RepoError>;

    /// # Errors
    /// `NotFound` for an id that is not one of the project's learnings.
    async fn get_learning(&self, project: ProjectId, id: Uuid) -> Result<Learning, RepoError>;

    /// # Errors
    /// `NotFound` as for [`LearningRepository::get_learning`].
    async fn edit_learning(
        &self,
        project: ProjectId,
        id: Uuid,
        text: &str,
    ) -> Result<Learning, RepoError>;

    /// # Errors
    /// `NotFound` as for [`LearningRepository::get_learning`].
    async fn delete_learning(&self, project: ProjectId, id: Uuid) -> Result<(), RepoError>;
}
