//! A project's learnings, as the PostgreSQL store keeps them (oldest first, a
//! project's own).

use super::MemoryStore;
use async_trait::async_trait;
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::conversation::{Learning, NewLearning};
use reviewd_domain::ports::{LearningRepository, RepoError};
use uuid::Uuid;

#[async_trait]
impl LearningRepository for MemoryStore {
    async fn learnings(&self, project: ProjectId) -> Result<Vec<Learning>, RepoError> {
        let t = self.tables();
        let mut found: Vec<Learning> = t
            .talk
            .learnings
            .iter()
            .filter(|l| l.project_id == project)
            .cloned()
            .collect();
        found.sort_by_key(|l| (l.created_at, l.id));
        Ok(found)
    }

    async fn add_learning(&self, new: NewLearning) -> Result<Learning, RepoError> {
        let now = self.now();
        let mut t = self.tables();
        t.project_exists(new.project_id)?;
        let learning = Learning {
            id: Uuid::now_v7(),
            project_id: new.project_id,
            text: new.text,
            source: new.source,
            author: new.author,
            mr_iid: new.mr_iid,
            created_at: now,
            updated_at: now,
        };
        t.talk.learnings.push(learning.clone());
        Ok(learning)
    }

    async fn get_learning(&self, project: ProjectId, id: Uuid) -> Result<Learning, RepoError> {
        let t = self.tables();
        t.talk
            .learnings
            .iter()
            .find(|l| l.id == id && l.project_id == project)
            .cloned()
            .ok_or(RepoError::NotFound)
    }

    async fn edit_learning(
        &self,
        project: ProjectId,
        id: Uuid,
        text: &str,
    ) -> Result<Learning, RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let l = t
            .talk
            .learnings
            .iter_mut()
            .find(|l| l.id == id && l.project_id == project)
            .ok_or(RepoError::NotFound)?;
        text.clone_into(&mut l.text);
        l.updated_at = now;
        Ok(l.clone())
    }

    async fn delete_learning(&self, project: ProjectId, id: Uuid) -> Result<(), RepoError> {
        let mut t = self.tables();
        let before = t.talk.learnings.len();
        t.talk
            .learnings
            .retain(|l| !(l.id == id && l.project_id == project));
        if t.talk.learnings.len() == before {
            return Err(RepoError::NotFound);
        }
        Ok(())
    }
}
