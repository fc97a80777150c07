//! Use cases. Each service holds the rules of one area and talks to the world
//! only through ports.

pub mod ai_configs;
pub mod analysis;
pub mod api_keys;
pub mod auth;
pub mod budgets;
pub mod catalog;
pub mod conversations;
pub mod error;
pub mod feedback;
pub mod health;
pub mod installations;
pub mod login_guard;
pub mod manual_reviews;
pub mod monitoring;
pub mod notifications;
pub mod platform_access;
pub mod platform_configs;
pub mod projects;
pub mod review_engine;
pub mod review_history;
pub mod runners;
pub mod system_reset;
pub mod tasks;
pub mod users;
pub mod webhook_intake;
pub mod webhooks;

pub use ai_configs::{AiConfigInput, AiConfigPatch, AiConfigService, AiTestReport, AiTrial};
pub use analysis::{AnalysisService, Landing};
pub use api_keys::{ApiKeyService, CreatedApiKey};
pub use auth::{AuthService, AuthSettings, ClientInfo, LoggedIn, RootOutcome};
pub use budgets::Budgets;
pub use catalog::CatalogService;
pub use conversations::{ConversationParts, ConversationService, Heard, TalkLimits};
pub use error::{FieldError, ServiceError};
pub use feedback::FeedbackService;
pub use health::HealthService;
pub use installations::{InstallationReport, InstallationSync};
pub use manual_reviews::{ManualReviewRequest, ManualReviewService};
pub use monitoring::{ApiTally, Collected, MonitoringService, Overview};
pub use notifications::{NotificationService, NotifySettings, TestResult};
pub use platform_configs::{
    ConnectionReport, OAuthSettings, PlatformConfigInput, PlatformConfigPatch,
    PlatformConfigService, UnknownSender,
};
pub use projects::{ProjectService, ResolvedProjectConfig, SyncFailure, SyncReport, Workspace};
pub use review_engine::{EngineSettings, ReviewEngine, RunOutcome};
pub use review_history::ReviewHistory;
pub use runners::{PrepareReport, RunnerService, RunnerSettings};
pub use system_reset::SystemResetService;
pub use tasks::{Enqueued, TaskService};
pub use users::{NewUserInput, UserService, UserUpdateInput};
pub use webhook_intake::{AssignmentPlan, DeliveryRef, FollowUp, IntakeOutcome, WebhookIntake};
pub use webhooks::{VerifySummary, WebhookResult, WebhookService};
