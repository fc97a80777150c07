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
mod hearing;
mod intake;
mod learnings;
mod model_calls;
mod posting;
mod replies;
mod running;
mod talk;

pub use intake::Heard;
pub use learnings::MAX_LEARNING_CHARS;

use super::ServiceError;
use super::ai_configs::AiConfigService;
use super::budgets::Budgets;
use super::feedback::FeedbackService;
use super::projects::ProjectService;
use super::tasks::TaskService;
use crate::model::ReviewTask;
use crate::model::conversation::{ConversationEnd, ConversationStatus};
use crate::ports::{
    Clock, ConversationRepository, FeedbackRepository, LearningRepository, ReviewRepository,
    SettingsRepository, TaskRepository,
};
use std::sync::Arc;
use std::time::Duration;

/// How much a merge request and a person may ask of reviewd.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TalkLimits {
    /// Answers per merge request within `window`.
    pub per_mr: u32,
    /// Answers per person (in all of a project's MRs) within `window`.
    pub per_author: u32,
    pub window: Duration,
}

impl Default for TalkLimits {
    fn default() -> Self {
        Self {
            per_mr: 20,
            per_author: 30,
            window: Duration::from_secs(3_600),
        }
    }
}

/// What the service needs, besides the stores.
pub struct ConversationParts {
    pub conversations: Arc<dyn ConversationRepository>,
    pub learnings: Arc<dyn LearningRepository>,
    pub tasks: Arc<TaskService>,
    pub task_records: Arc<dyn TaskRepository>,
    pub reviews: Arc<dyn ReviewRepository>,
    /// Where a finding's file and line are found by its fingerprint.
    pub feedback_store: Arc<dyn FeedbackRepository>,
    pub projects: Arc<ProjectService>,
    pub settings: Arc<dyn SettingsRepository>,
    pub ai: Arc<AiConfigService>,
    pub clock: Arc<dyn Clock>,
}

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
