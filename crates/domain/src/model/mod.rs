//! Entities of the domain.

pub mod ai_config;
pub mod api_key;
pub mod budget_stop;
pub mod conversation;
pub mod cost;
pub mod diff;
pub mod gate;
pub mod grade;
pub mod health;
pub mod ids;
pub mod monitoring;
pub(crate) mod named_values;
pub mod notification;
pub mod platform;
pub mod principal;
pub mod project;
pub mod review;
pub mod review_views;
pub mod role;
pub mod rule;
pub mod runner;
pub mod secret;
pub mod session;
pub mod task;
pub mod user;
pub mod webhook;
pub mod webhook_payload;

pub use ai_config::{
    AiConfig, AiConfigChanges, AiProviderKind, AiSource, AiTarget, BuiltinAi, NewAiConfig,
};
pub use api_key::{ApiKey, NewApiKey};
pub use budget_stop::BudgetStop;
pub use cost::{AiPrices, BudgetMonth, cost_usd};
pub use ids::{ProjectId, ReviewFileId, ReviewId};
pub use platform::{
    AppCredentials, AuthType, MergeRequest, MrState, NewPlatformConfig, OAuthTokens,
    PlatformConfig, PlatformConfigChanges, PlatformConnection, PlatformPage, PlatformProject,
    PlatformType, PlatformUser, PlatformWebhook, RunnerToken, TokenIdentity,
};
pub use principal::{AuthMethod, Principal};
pub use project::{
    GlobalSettings, PipelineEntry, PipelineFilter, Project, ProjectCost, ProjectFilter,
    ProjectSettingsChanges, ProjectStats, ReviewSummary, WebhookState, WebhookStatus,
    WebhookStatusFilter,
};
pub use role::{Permission, Role};
pub use secret::{MASK, SecretString};
pub use session::{NewSession, Session};
pub use task::{NewReviewTask, ReviewTask, TaskStatus, TriggeredBy};
pub use user::{NewUser, User, UserChanges};
pub use webhook::{
    CommentEvent, FeedbackEvent, FeedbackEventKind, InstallationChange, InstallationEvent,
    MergeRequestEvent, MrAction, NoteRef, WebhookEvent, WebhookProof,
};
