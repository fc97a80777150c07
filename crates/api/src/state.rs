//! What every handler can reach: the edge's settings and the domain services.

use crate::settings::EdgeSettings;
use reviewd_domain::ports::HealthProbe;
use reviewd_domain::services::{
    AiConfigService, ApiKeyService, AuthService, Budgets, CatalogService, FeedbackService,
    HealthService, InstallationSync, ManualReviewService, MonitoringService, NotificationService,
    PlatformConfigService, ProjectService, ReviewEngine, ReviewHistory, RunnerService,
    SystemResetService, TaskService, UserService, WebhookIntake, WebhookService,
};
use reviewd_runtime::preparer::PreparerWake;
use std::sync::Arc;
use std::time::Instant;

pub struct AppState {
    pub settings: Arc<EdgeSettings>,
    pub auth: AuthService,
    pub api_keys: ApiKeyService,
    pub users: UserService,
    pub platform_configs: PlatformConfigService,
    pub ai_configs: Arc<AiConfigService>,
    pub projects: Arc<ProjectService>,
    pub webhooks: WebhookService,
    pub tasks: Arc<TaskService>,
    pub intake: WebhookIntake,
    /// Announces the automatic reviews the intake stopped for a spent budget.
    pub budgets: Arc<Budgets>,
    pub feedback: Arc<FeedbackService>,
    pub installations: Arc<InstallationSync>,
    pub manual_reviews: ManualReviewService,
    pub history: ReviewHistory,
    pub catalog: CatalogService,
    pub health: HealthService,
    pub monitoring: Arc<MonitoringService>,
    pub system_reset: SystemResetService,
    pub runners: Arc<RunnerService>,
    /// Told of runners registering and claiming (see `reviewd_runtime::preparer`).
    pub preparer_wake: PreparerWake,
    pub notifications: Arc<NotificationService>,
    pub engine: Arc<ReviewEngine>,
    /// Conversations in merge requests, MRs' controls and projects' learnings.
    pub talk: Arc<reviewd_domain::services::ConversationService>,
    /// Analyzers' results uploaded from CI.
    pub analysis: Arc<reviewd_domain::services::AnalysisService>,
    /// Dependencies reported by `GET /api/health/detailed`.
    pub probes: Vec<Arc<dyn HealthProbe>>,
    pub started_at: Instant,
}
