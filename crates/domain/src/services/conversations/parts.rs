//! What the conversation service is built from: its stores and services, and the
//! limits on how much a merge request and a person may ask.

use crate::ports::{
    Clock, ConversationRepository, FeedbackRepository, LearningRepository, ReviewRepository,
    SettingsRepository, TaskRepository,
};
use crate::services::ai_configs::AiConfigService;
use crate::services::projects::ProjectService;
use crate::services::tasks::TaskService;
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
