//! A project's learnings, as the API and the dashboard list, add, edit and delete
//! them (the `remember` command and the model add theirs in the conversation).

use super::ConversationService;
use crate::model::ProjectId;
use crate::model::conversation::{Learning, LearningSource, NewLearning};
use crate::services::{FieldError, ServiceError};
use uuid::Uuid;

/// Longest learning, in characters (the store's bound).
pub const MAX_LEARNING_CHARS: usize = 2_000;

/// The text trimmed, or why it cannot be a learning.
fn lesson(text: &str) -> Result<String, ServiceError> {
    let text = text.trim();
    let count = text.chars().count();
    if count == 0 || count > MAX_LEARNING_CHARS {
        return Err(ServiceError::Invalid(vec![FieldError::new(
            "text",
            format!("must be 1 to {MAX_LEARNING_CHARS} characters besides spaces"),
        )]));
    }
    Ok(text.to_owned())
}

impl ConversationService {
    /// # Errors
    /// `NotFound` for an unknown project.
    pub async fn learnings(&self, project: ProjectId) -> Result<Vec<Learning>, ServiceError> {
        self.parts.projects.get(project).await?;
        Ok(self.parts.learnings.learnings(project).await?)
    }

    /// # Errors
    /// `NotFound` for an unknown project; `Validation` for an empty or long text.
    pub async fn add_learning(
        &self,
        project: ProjectId,
        text: &str,
        author: &str,
    ) -> Result<Learning, ServiceError> {
        let text = lesson(text)?;
        self.parts.projects.get(project).await?;
        let new = NewLearning {
            project_id: project,
            text,
            source: LearningSource::Api,
            author: Some(author.to_owned()),
            mr_iid: None,
        };
        self.parts
            .learnings
            .add_learning(new)
            .await
            .map_err(|e| ServiceError::from_repo(e, "project"))
    }

    /// # Errors
    /// `NotFound` for an unknown project or learning; `Validation` as for adding.
    pub async fn edit_learning(
        &self,
        project: ProjectId,
        id: Uuid,
        text: &str,
    ) -> Result<Learning, ServiceError> {
        let text = lesson(text)?;
        self.parts
            .learnings
            .edit_learning(project, id, &text)
            .await
            .map_err(|e| ServiceError::from_repo(e, "learning"))
    }

    /// # Errors
    /// `NotFound` for an unknown project or learning.
    pub async fn delete_learning(&self, project: ProjectId, id: Uuid) -> Result<(), ServiceError> {
        self.parts
            .learnings
            .delete_learning(project, id)
            .await
            .map_err(|e| ServiceError::from_repo(e, "learning"))
    }
}
