//! Conversations and merge requests' controls, keyed as the PostgreSQL store's
//! unique keys and foreign keys have them; the tables of learnings too (their
//! port is in `learnings.rs`).

use super::{MemoryStore, Tables};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::conversation::{
    ControlChange, Conversation, ConversationEnd, ConversationStatus, Learning, MrControls,
    NewConversation, RecentTalk,
};
use reviewd_domain::ports::{ConversationRepository, RepoError};
use std::collections::HashMap;
use uuid::Uuid;

/// The tables of this module.
#[derive(Debug, Default)]
pub(crate) struct ConversationTables {
    pub conversations: Vec<Conversation>,
    pub controls: HashMap<(ProjectId, i64), MrControls>,
    pub learnings: Vec<Learning>,
}

impl Tables {
    /// The foreign key to `projects`.
    pub(super) fn project_exists(&self, project: ProjectId) -> Result<(), RepoError> {
        if self.projects.iter().any(|p| p.id == project) {
            Ok(())
        } else {
            Err(RepoError::NotFound)
        }
    }
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[async_trait]
impl ConversationRepository for MemoryStore {
    async fn record(&self, new: NewConversation) -> Result<(Conversation, bool), RepoError> {
        let now = self.now();
        let mut t = self.tables();
        t.project_exists(new.project_id)?;
        let talk = &mut t.talk;
        if let Some(c) = talk
            .conversations
            .iter()
            .find(|c| c.project_id == new.project_id && c.note_id == new.note_id)
        {
            return Ok((c.clone(), false));
        }
        let conversation = Conversation {
            id: Uuid::now_v7(),
            project_id: new.project_id,
            mr_iid: new.mr_iid,
            note_id: new.note_id,
            thread_id: new.thread_id,
            author: new.author,
            body: new.body,
            addressed: new.addressed,
            command: new.command,
            status: ConversationStatus::Queued,
            answer: None,
            answer_note_id: None,
            detail: None,
            created_at: now,
            answered_at: None,
        };
        talk.conversations.push(conversation.clone());
        Ok((conversation, true))
    }

    async fn get(&self, id: Uuid) -> Result<Conversation, RepoError> {
        let t = self.tables();
        t.talk
            .conversations
            .iter()
            .find(|c| c.id == id)
            .cloned()
            .ok_or(RepoError::NotFound)
    }

    async fn finish(&self, id: Uuid, end: ConversationEnd) -> Result<bool, RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let c = t
            .talk
            .conversations
            .iter_mut()
            .find(|c| c.id == id)
            .ok_or(RepoError::NotFound)?;
        if c.status != ConversationStatus::Queued {
            return Ok(false);
        }
        c.status = end.status;
        c.answer = end.answer;
        c.answer_note_id = end.answer_note_id;
        c.detail = end.detail;
        c.answered_at = Some(now);
        Ok(true)
    }

    async fn for_mr(
        &self,
        project: ProjectId,
        mr_iid: i64,
    ) -> Result<Vec<Conversation>, RepoError> {
        let t = self.tables();
        let mut found: Vec<Conversation> = t
            .talk
            .conversations
            .iter()
            .filter(|c| c.project_id == project && c.mr_iid == mr_iid)
            .cloned()
            .collect();
        found.sort_by_key(|c| (c.created_at, c.id));
        Ok(found)
    }

    async fn recent(
        &self,
        project: ProjectId,
        mr_iid: i64,
        author: &str,
        since: DateTime<Utc>,
        except: Uuid,
    ) -> Result<RecentTalk, RepoError> {
        let t = self.tables();
        let counted: Vec<&Conversation> = t
            .talk
            .conversations
            .iter()
            .filter(|c| c.project_id == project && c.created_at >= since && c.id != except)
            .filter(|c| c.status != ConversationStatus::Ignored)
            .collect();
        Ok(RecentTalk {
            in_mr: count(counted.iter().filter(|c| c.mr_iid == mr_iid).count()),
            by_author: count(
                counted
                    .iter()
                    .filter(|c| c.author.username == author)
                    .count(),
            ),
        })
    }

    async fn controls(&self, project: ProjectId, mr_iid: i64) -> Result<MrControls, RepoError> {
        let t = self.tables();
        Ok(t.talk
            .controls
            .get(&(project, mr_iid))
            .cloned()
            .unwrap_or_default())
    }

    async fn change_controls(
        &self,
        project: ProjectId,
        mr_iid: i64,
        change: ControlChange,
        by: &str,
    ) -> Result<MrControls, RepoError> {
        let now = self.now();
        let mut t = self.tables();
        t.project_exists(project)?;
        let c = t.talk.controls.entry((project, mr_iid)).or_default();
        match change {
            ControlChange::Pause => c.paused = true,
            ControlChange::Resume => c.paused = false,
            ControlChange::Ignore => c.ignored = true,
        }
        c.changed_by = Some(by.to_owned());
        c.updated_at = Some(now);
        Ok(c.clone())
    }

    async fn note_refusal(&self, project: ProjectId, mr_iid: i64) -> Result<bool, RepoError> {
        let now = self.now();
        let mut t = self.tables();
        t.project_exists(project)?;
        let c = t.talk.controls.entry((project, mr_iid)).or_default();
        if c.refused_at.is_some() {
            return Ok(false);
        }
        c.refused_at = Some(now);
        c.updated_at.get_or_insert(now);
        Ok(true)
    }
}
