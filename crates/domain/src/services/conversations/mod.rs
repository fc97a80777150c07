//! Conversations with reviewd in merge requests. On the webhook's path a comment
//! that may speak to reviewd (a command, a mention, a reply in a thread) is
//! recorded once and a task queued to answer it ([`ConversationService::hear`]);
//! the task, on the review queue with its retries and leases, decides whether and
//! what to answer ([`ConversationService::answer`]): who wrote it (a bot, reviewd
//! itself, someone without developer access), whether it is addressed to reviewd
//! at all, the rate limits, then the command or the model's answer, posted once
//! under a marker naming the comment it answers.

mod hearing;
mod learnings;
mod replies;
mod running;

pub use learnings::MAX_LEARNING_CHARS;

use super::ServiceError;
use super::ai_configs::AiConfigService;
use super::budgets::Budgets;
use super::feedback::FeedbackService;
use super::projects::ProjectService;
use super::tasks::{Enqueued, TaskService};
use super::webhook_intake::DEFAULT_MAX_ATTEMPTS;
use crate::model::conversation::{Addressed, ConversationEnd, ConversationStatus, NewConversation};
use crate::model::{CommentEvent, NewReviewTask, Project, ReviewTask, TriggeredBy};
use crate::ports::{
    Clock, ConversationRepository, FeedbackRepository, LearningRepository, ReviewRepository,
    SettingsRepository, TaskRepository,
};
use crate::review::commands::{self, Addressing};
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

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
}

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
    #[must_use]
    pub fn new(parts: ConversationParts) -> Self {
        Self {
            parts,
            limits: TalkLimits::default(),
            budgets: None,
            feedback: None,
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
        let to = Addressing {
            bot_username: None,
            review_commands: &review_commands,
        };
        let (addressed, command) = match commands::read(&comment.body, to) {
            Some(commands::Said::Command(c)) => (Addressed::Command, Some(c.word().to_owned())),
            // `@someone`: the bot, maybe; the task reads it again knowing its name.
            _ if commands::may_mention(&comment.body) => (Addressed::Mention, None),
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
        };
        Ok(match self.parts.tasks.enqueue(task).await? {
            Enqueued::Queued(t) | Enqueued::AlreadyActive(t) => Heard::Queued { task_id: t.id },
            Enqueued::QueueFailed(t) => Heard::QueueFailed { task_id: t.id },
        })
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
