//! PostgreSQL adapters of reviewd's repository ports: diesel + diesel-async over a
//! deadpool pool. `schema.rs` mirrors `migrations/`; `*Row` structs stay here and are
//! converted into domain entities, so no diesel type leaks into the domain.

mod cache;
mod error;
mod health;
mod kept;
mod migrate;
mod pool;
mod repos;
mod rows;
pub mod schema;

pub use cache::ConfigCache;
pub use error::map_diesel_error;
pub use health::PgHealthProbe;
pub use migrate::{MigrateError, revert_all_migrations, run_migrations};
pub use pool::{ConnectError, PgPool, connect, ping};
pub use repos::{
    PgAiConfigRepository, PgAnalysisRepository, PgApiKeyRepository, PgCatalogRepository,
    PgConversationRepository, PgDataWipe, PgFeedbackRepository, PgHealthCheckRepository,
    PgJobLedger, PgMonitoringRepository, PgNotificationRepository, PgPlatformConfigRepository,
    PgProjectRepository, PgReviewQueries, PgReviewRepository, PgRunnerRepository,
    PgSessionRepository, PgSettingsRepository, PgTaskRepository, PgUserRepository,
};
