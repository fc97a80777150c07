//! Port traits: what the domain needs from the outside world. Adapters implement
//! them; services receive them as `Arc<dyn Port>`.

pub mod ai_config_repository;
pub mod ai_provider;
pub mod analysis_repository;
pub mod api_key_repository;
pub mod catalog_repository;
pub mod clock;
pub mod code_source;
pub mod conversation_repository;
pub mod credentials;
pub mod feedback_repository;
pub mod health_checks;
pub mod health_probe;
pub mod hosting_platform;
pub mod login_throttle;
pub mod monitoring;
pub mod notifications;
pub mod platform_config_repository;
pub mod platform_error;
pub mod prepared_rounds;
pub mod project_repository;
pub mod repo_error;
pub mod review_queries;
pub mod review_repository;
pub mod runner_repository;
pub mod session_repository;
pub mod settings_repository;
pub mod syntax;
pub mod task_queue;
pub mod task_repository;
pub mod user_repository;

/// The YAML adapter's port sits beside the file's meaning, in `review::repo_config`.
pub use crate::review::repo_config::RepoConfigParser;
pub use ai_config_repository::AiConfigRepository;
pub use ai_provider::{AiCompletion, AiError, AiProvider, AiProviders, AiRequest, TokenUsage};
pub use analysis_repository::{AnalysisRepository, NewUpload, Upload};
pub use api_key_repository::ApiKeyRepository;
pub use catalog_repository::{ActiveRule, CatalogRepository, RuleChanges, TemplateChanges};
pub use clock::Clock;
pub use code_source::{Archive, ArchiveLimits, ArchivedFile, CodeSource, RepoTree, TreeEntry};
pub use conversation_repository::{ConversationRepository, LearningRepository};
pub use credentials::{CredentialError, PasswordHasher, TokenHasher, WebhookVerifier};
pub use feedback_repository::{
    AcceptanceCounts, FeedbackRepository, FeedbackScope, FeedbackSource, FeedbackTarget,
    NewFeedback, RejectedFinding,
};
pub use health_checks::{DiskSpace, DiskUsage, HealthCheckRepository};
pub use health_probe::{HealthProbe, ProbeError};
pub use hosting_platform::{HostingPlatform, PlatformClients, PlatformOAuth, ProjectRef};
pub use login_throttle::{LoginThrottle, ThrottleError};
pub use monitoring::{
    DataWipe, JobLedger, JobOutcome, MonitoringRepository, ResetCaller, SystemSampler,
};
pub use notifications::{
    NewDelivery, NotificationRepository, Notifier, NotifyError, ReviewObserver, VapidKeyGenerator,
};
pub use platform_config_repository::PlatformConfigRepository;
pub use platform_error::PlatformError;
pub use prepared_rounds::{
    ClaimBatch, ClaimedRow, Orphaned, Preparation, PreparationBudget, PreparedPayload,
    PreparedRound, TaskReservation,
};
pub use project_repository::ProjectRepository;
pub use repo_error::RepoError;
pub use review_queries::ReviewQueries;
pub use review_repository::ReviewRepository;
pub use runner_repository::{HeldTask, RunnerRepository, SweepReport};
pub use session_repository::SessionRepository;
pub use settings_repository::SettingsRepository;
pub use syntax::{Outline, Reference, SourceFile, Symbol, SymbolKind, SyntaxAnalyzer};
pub use task_queue::{Delivery, DeliveryLog, QueueError, TaskQueue};
pub use task_repository::{AttemptEnd, AttemptStart, TaskInsert, TaskRepository};
pub use user_repository::UserRepository;
