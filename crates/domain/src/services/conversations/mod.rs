//! Conversations with reviewd in merge requests. On the webhook's path a comment
//! that may speak to reviewd (a command, a mention, a reply in a thread) is
//! recorded once and a task queued to answer it ([`ConversationService::hear`]);
//! the task, on the review queue with its retries and leases, decides whether and
//! what to answer ([`ConversationService::answer`]): who wrote it (a bot, reviewd
//! itself, someone without developer access), whether it is addressed to reviewd
//! at all, the rate limits, then the command or the model's answer, posted once
//! under a marker naming the comment it answers.

mod bot_names;
mod describing;
mod guard;
mod hearing;
mod intake;
mod learnings;
mod model_calls;
mod parts;
mod posting;
mod replies;
mod running;
mod talk;

pub use intake::Heard;
pub use learnings::MAX_LEARNING_CHARS;
pub use parts::{ConversationParts, TalkLimits};

use super::ServiceError;
use super::budgets::Budgets;
use super::feedback::FeedbackService;
use crate::model::ReviewTask;
use crate::model::conversation::{ConversationEnd, ConversationStatus};
use std::sync::Arc;

pub struct ConversationService {
    parts: ConversationParts,
    limits: TalkLimits,
    budgets: Option<Arc<Budgets>>,
    feedback: Option<Arc<FeedbackService>>,
    bots: bot_names::BotNames,
}

impl ConversationService {
    #[must_use]
    pub fn new(parts: ConversationParts) -> Self {
        Self {
            parts,
            limits: TalkLimits::default(),
            budgets: None,
            feedback: None,
            bots: bot_names::BotNames::default(),
        }
    }

    #[must_use]
    pub fn limited_to(mut self, limits: TalkLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Answers only while the project's monthly AI budget lasts.
    #[must_use]
    pub fn with_budgets(mut self, budgets: Arc<Budgets>) -> Self {
        self.budgets = Some(budgets);
        self
    }

    /// Records a rebuttal the model accepts as feedback on the finding.
    #[must_use]
    pub fn with_feedback(mut self, feedback: Arc<FeedbackService>) -> Self {
        self.feedback = Some(feedback);
        self
    }

    /// What the team told reviewd about the MR (paused, ignored).
    ///
    /// # Errors
    /// Store failures.
    pub async fn controls(
        &self,
        project: crate::model::ProjectId,
        mr_iid: i64,
    ) -> Result<crate::model::conversation::MrControls, ServiceError> {
        Ok(self.parts.conversations.controls(project, mr_iid).await?)
    }

    /// The MR's conversations, oldest first.
    ///
    /// # Errors
    /// Store failures.
    pub async fn for_mr(
        &self,
        project: crate::model::ProjectId,
        mr_iid: i64,
    ) -> Result<Vec<crate::model::conversation::Conversation>, ServiceError> {
        Ok(self.parts.conversations.for_mr(project, mr_iid).await?)
    }

    /// Ends the conversation of a task that failed for good (out of attempts,
    /// timed out): its record says so, and nothing is posted.
    pub(crate) async fn give_up(&self, task: &ReviewTask, message: &str) {
        let Some(id) = task.conversation_id else {
            return;
        };
        let end = ConversationEnd {
            status: ConversationStatus::Failed,
            answer: None,
            answer_note_id: None,
            detail: Some(message.to_owned()),
        };
        if let Err(e) = self.parts.conversations.finish(id, end).await {
            tracing::warn!(conversation.id = %id, error = %e, "conversation.failure_not_recorded");
        }
    }
}
