//! The webhook's part: a comment that may speak to reviewd is recorded once and
//! its answer queued, without a platform call.

use super::ConversationService;
use crate::model::conversation::{Addressed, ConversationStatus, NewConversation};
use crate::model::{CommentEvent, NewReviewTask, Project, TriggeredBy};
use crate::review::commands::{self, Addressing};
use crate::services::ServiceError;
use crate::services::tasks::{DEFAULT_MAX_ATTEMPTS, Enqueued};
use uuid::Uuid;

/// What [`ConversationService::hear`] did with a comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heard {
    /// Recorded and its answer queued (or already queued: a redelivery).
    Queued { task_id: Uuid },
    /// Recorded before and ended already: nothing to do again.
    AlreadyAnswered,
    /// Not addressed to reviewd (or not answerable: no id, no author).
    NotForUs,
    /// The answer could not be queued: the platform should retry.
    QueueFailed { task_id: Uuid },
}

impl ConversationService {
    /// The webhook's part: records a comment that may speak to reviewd and queues
    /// its answer. Cheap and without platform calls (GitHub gives a delivery 10
    /// seconds); whether it really is for reviewd is the task's to decide, once it
    /// knows the bot's name.
    ///
    /// # Errors
    /// Store failures (the platform should retry).
    pub async fn hear(
        &self,
        project: &Project,
        comment: &CommentEvent,
    ) -> Result<Heard, ServiceError> {
        let Some(note) = &comment.note else {
            return Ok(Heard::NotForUs);
        };
        let review_commands = self.parts.settings.global().await?.review_commands;
        // reviewd's name, when a recent answer asked it: then a mention of
        // someone else is no conversation (no row, no task, no platform call).
        let bot = self
            .bots
            .known(project.platform_config_id, self.parts.clock.now());
        let to = Addressing {
            bot_username: bot.as_deref(),
            review_commands: &review_commands,
        };
        let (addressed, command) = match commands::read(&comment.body, to) {
            Some(commands::Said::Command(c)) => (Addressed::Command, Some(c.word().to_owned())),
            Some(commands::Said::Mention) => (Addressed::Mention, None),
            // `@someone`: the bot, maybe; the task reads it again knowing its name.
            _ if bot.is_none() && commands::may_mention(&comment.body) => {
                (Addressed::Mention, None)
            }
            _ if comment.in_thread && note.thread_id.is_some() => (Addressed::Reply, None),
            _ => return Ok(Heard::NotForUs),
        };
        let (conversation, _) = self
            .parts
            .conversations
            .record(NewConversation {
                project_id: project.id,
                mr_iid: comment.iid,
                note_id: note.id.clone(),
                thread_id: note.thread_id.clone(),
                author: note.author.clone(),
                body: comment.body.clone(),
                addressed,
                command,
            })
            .await?;
        if conversation.status != ConversationStatus::Queued {
            return Ok(Heard::AlreadyAnswered);
        }
        // Queued again for a recorded conversation: the dedup key finds its
        // active task, or a new one replaces a task lost before it was queued.
        let task = NewReviewTask {
            triggered_by: TriggeredBy::Manual,
            project_id: project.id,
            mr_iid: comment.iid,
            head_sha: None,
            send_to_platform: true,
            template_id: None,
            requested_by: None,
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            conversation_id: Some(conversation.id),
            full_review: false,
        };
        Ok(match self.parts.tasks.enqueue(task).await? {
            Enqueued::Queued(t) | Enqueued::AlreadyActive(t) => Heard::Queued { task_id: t.id },
            Enqueued::QueueFailed(t) => Heard::QueueFailed { task_id: t.id },
        })
    }
}
