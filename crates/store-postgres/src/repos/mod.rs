//! One repository per port, and what they share: a pooled connection, pagination
//! (`page`), advisory locks (`locks`) and small conversions.

mod ai_configs;
mod ai_fallbacks;
mod analysis;
mod api_keys;
mod catalog;
mod conversations;
mod costs;
mod feedback;
mod health_checks;
mod jobs;
mod learnings;
mod locks;
mod monitoring;
mod notifications;
mod page;
mod platform_configs;
mod projects;
mod review_queries;
mod reviews;
mod runners;
mod sessions;
mod settings;
mod standing;
mod tasks;
mod users;
mod wipe;

pub use ai_configs::PgAiConfigRepository;
pub use analysis::PgAnalysisRepository;
pub use api_keys::PgApiKeyRepository;
pub use catalog::PgCatalogRepository;
pub use conversations::PgConversationRepository;
pub use feedback::PgFeedbackRepository;
pub use health_checks::PgHealthCheckRepository;
pub use jobs::PgJobLedger;
pub use monitoring::PgMonitoringRepository;
pub use notifications::PgNotificationRepository;
pub use platform_configs::PgPlatformConfigRepository;
pub use projects::PgProjectRepository;
pub use review_queries::PgReviewQueries;
pub use reviews::PgReviewRepository;
pub use runners::PgRunnerRepository;
pub use sessions::PgSessionRepository;
pub use settings::PgSettingsRepository;
pub use tasks::PgTaskRepository;
pub use users::PgUserRepository;
pub use wipe::PgDataWipe;

pub(crate) use crate::rows::count;
pub(crate) use page::{Window, paginate, paginate_with_total, window};

use crate::error::map_pool_error;
use crate::pool::{PgConn, PgPool};
use reviewd_domain::ports::RepoError;

pub(crate) async fn conn(pool: &PgPool) -> Result<PgConn, RepoError> {
    pool.get().await.map_err(map_pool_error)
}

/// `%text%` for ILIKE, with the caller's wildcards taken literally.
pub(crate) fn contains_pattern(text: &str) -> String {
    let escaped = text
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    format!("%{escaped}%")
}

/// `NotFound` when an update or delete touched no row (an unknown id), else `Ok`.
pub(crate) fn found(rows: usize) -> Result<(), RepoError> {
    if rows == 0 {
        Err(RepoError::NotFound)
    } else {
        Ok(())
    }
}
