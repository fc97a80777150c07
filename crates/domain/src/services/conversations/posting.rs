//! Posting an answer once (in the comment's thread when it has one), conceding a
//! finding, and recording how a conversation ended.

use super::ConversationService;
use super::talk::{Answer, Talk};
use crate::model::ReviewTask;
use crate::model::conversation::{ConversationEnd, ConversationStatus};
use crate::ports::PlatformError;
use crate::review::markers;
use crate::review::standing::REFUSAL;
use crate::services::review_engine::Failure;

impl ConversationService {
    /// Posts the answer (in the comment's thread when it has one), unless the
    /// attempt is no longer this worker's, and records it.
    pub(super) async fn post(
        &self,
        talk: &Talk,
        task: &ReviewTask,
        worker: &str,
        answer: Answer,
    ) -> Result<(), Failure> {
        let c = &talk.conversation;
        // The model's work can outlast the lease: post only while the attempt is ours.
        if !self
            .parts
            .task_records
            .renew_attempt(task.id, worker)
            .await?
        {
            return Ok(());
        }
        let mut body = answer.text.clone();
        body.push_str("\n\n");
        if answer.concede {
            body.push_str(markers::CONCEDED);
        }
        body.push_str(&markers::answer_marker(&c.note_id));
        let note_id = match &c.thread_id {
            Some(thread) => match talk
                .platform
                .reply_in_thread(&talk.target, c.mr_iid, thread, &body)
                .await
            {
                Ok(id) => id,
                Err(PlatformError::Unsupported(_) | PlatformError::NotFound(_)) => {
                    talk.platform
                        .post_comment(&talk.target, c.mr_iid, &body)
                        .await?
                }
                Err(e) => return Err(e.into()),
            },
            None => {
                talk.platform
                    .post_comment(&talk.target, c.mr_iid, &body)
                    .await?
            }
        };
        if answer.concede
            && let Some(thread) = &c.thread_id
        {
            self.concede(talk, thread).await;
        }
        let mut end = answered(&answer.text, Some(note_id));
        if answer.text == REFUSAL {
            end.status = ConversationStatus::Refused;
        }
        self.parts.conversations.finish(c.id, end).await?;
        tracing::info!(conversation.id = %c.id, mr.iid = c.mr_iid, "conversation.answered");
        Ok(())
    }

    /// Resolves the thread of a finding reviewd conceded, and records the verdict.
    /// Neither failing undoes the answer: the feedback pass reads the thread again.
    async fn concede(&self, talk: &Talk, thread: &str) {
        let c = &talk.conversation;
        if let Err(e) = talk
            .platform
            .resolve_thread(&talk.target, c.mr_iid, thread)
            .await
        {
            tracing::warn!(conversation.id = %c.id, error = %e, "conversation.resolve_failed");
        }
        if let Some(feedback) = &self.feedback
            && let Err(e) = feedback.collect(talk.project.id, c.mr_iid).await
        {
            tracing::warn!(conversation.id = %c.id, error = %e, "conversation.feedback_not_recorded");
        }
    }

    pub(super) async fn end(&self, talk: &Talk, end: ConversationEnd) -> Result<(), Failure> {
        tracing::info!(conversation.id = %talk.conversation.id, status = end.status.as_str(), detail = end.detail.as_deref().unwrap_or(""), "conversation.ended");
        self.parts
            .conversations
            .finish(talk.conversation.id, end)
            .await?;
        Ok(())
    }
}

pub(super) fn answered(text: &str, note_id: Option<String>) -> ConversationEnd {
    ConversationEnd {
        status: ConversationStatus::Answered,
        answer: Some(without_markers(text)),
        answer_note_id: note_id,
        detail: None,
    }
}

pub(super) fn ignored(why: &str) -> ConversationEnd {
    ConversationEnd {
        status: ConversationStatus::Ignored,
        answer: None,
        answer_note_id: None,
        detail: Some(why.to_owned()),
    }
}

/// An answer's text without the markers it was posted with.
fn without_markers(text: &str) -> String {
    crate::review::answer::postable(text)
}
