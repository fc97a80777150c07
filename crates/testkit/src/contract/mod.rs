//! Port contract suites: what every implementation of a port must do, written once
//! and run against each implementation — the in-memory ones here
//! (`tests/contract_memory.rs`) and the real adapters in their own crates (the
//! PostgreSQL repositories, the Redis queue, the HTTP adapters against the fake
//! servers). An adapter someone adds proves itself by running the same suite.
//!
//! A suite is `pub async fn run(..)` in the port's module; its cases are private
//! functions that each set up the rows they need, so one store serves the whole
//! suite. Time-dependent cases use zero or past durations instead of waiting.

pub mod ai;
pub mod ai_configs;
mod ai_fallbacks;
pub mod analysis;
pub mod api_keys;
pub mod catalog;
pub mod clock;
pub mod conversations;
pub mod costs;
pub mod credentials;
pub mod data_wipe;
pub mod feedback;
pub mod health_checks;
pub mod health_probe;
pub mod hosting;
pub mod jobs;
pub mod learnings;
pub mod login_throttle;
pub mod monitoring;
pub mod notifications;
pub mod notifier;
pub mod oauth;
pub mod platform_configs;
pub mod projects;
pub mod queue;
pub mod review_queries;
pub mod reviews;
pub mod runners;
pub mod seed;
pub mod sessions;
pub mod settings;
pub mod system;
pub mod tasks;
pub mod users;
pub mod vapid;

use reviewd_domain::ports::{
    AiConfigRepository, ApiKeyRepository, CatalogRepository, ConversationRepository, DataWipe,
    FeedbackRepository, HealthCheckRepository, JobLedger, LearningRepository, MonitoringRepository,
    NotificationRepository, PlatformConfigRepository, ProjectRepository, RepoError, ReviewQueries,
    ReviewRepository, RunnerRepository, SessionRepository, SettingsRepository, TaskRepository,
    UserRepository,
};
use std::sync::Arc;

/// Asserts that the store refused with `NotFound`, showing what it answered if not.
pub(crate) fn assert_not_found<T: std::fmt::Debug>(result: Result<T, RepoError>) {
    assert!(
        matches!(result, Err(RepoError::NotFound)),
        "expected NotFound, got {result:?}"
    );
}

/// Asserts that the store refused with `Conflict`, showing what it answered if not.
pub(crate) fn assert_conflict<T: std::fmt::Debug>(result: Result<T, RepoError>) {
    assert!(
        matches!(result, Err(RepoError::Conflict(_))),
        "expected Conflict, got {result:?}"
    );
}

/// The repository ports of one implementation, sharing one store.
#[derive(Clone)]
pub struct Stores {
    pub platform_configs: Arc<dyn PlatformConfigRepository>,
    pub ai_configs: Arc<dyn AiConfigRepository>,
    pub projects: Arc<dyn ProjectRepository>,
    pub settings: Arc<dyn SettingsRepository>,
    pub catalog: Arc<dyn CatalogRepository>,
    pub tasks: Arc<dyn TaskRepository>,
    pub runners: Arc<dyn RunnerRepository>,
    pub reviews: Arc<dyn ReviewRepository>,
    pub feedback: Arc<dyn FeedbackRepository>,
    pub review_queries: Arc<dyn ReviewQueries>,
    pub notifications: Arc<dyn NotificationRepository>,
    pub monitoring: Arc<dyn MonitoringRepository>,
    pub jobs: Arc<dyn JobLedger>,
    pub health_checks: Arc<dyn HealthCheckRepository>,
    pub users: Arc<dyn UserRepository>,
    pub sessions: Arc<dyn SessionRepository>,
    pub api_keys: Arc<dyn ApiKeyRepository>,
    pub wipe: Arc<dyn DataWipe>,
    pub conversations: Arc<dyn ConversationRepository>,
    pub learnings: Arc<dyn LearningRepository>,
    pub analysis: Arc<dyn reviewd_domain::ports::AnalysisRepository>,
}

impl Stores {
    /// Every port on one in-memory store.
    #[must_use]
    pub fn memory(store: &crate::MemoryStore) -> Self {
        let s = Arc::new(store.clone());
        Self {
            platform_configs: s.clone(),
            ai_configs: s.clone(),
            projects: s.clone(),
            settings: s.clone(),
            catalog: s.clone(),
            tasks: s.clone(),
            runners: s.clone(),
            reviews: s.clone(),
            feedback: s.clone(),
            review_queries: s.clone(),
            notifications: s.clone(),
            monitoring: s.clone(),
            jobs: s.clone(),
            health_checks: s.clone(),
            users: s.clone(),
            sessions: s.clone(),
            api_keys: s.clone(),
            conversations: s.clone(),
            learnings: s.clone(),
            analysis: s.clone(),
            wipe: s,
        }
    }
}

/// One `#[tokio::test]` per repository port, each on a fresh store made by
/// `$make` (an async fn returning the [`Stores`] and a guard that keeps the store
/// alive for the test, e.g. its database).
#[macro_export]
macro_rules! repository_contract_tests {
    ($make:path) => {
        $crate::repository_contract_tests!(@ports $make;
            platform_configs, ai_configs, projects, settings, catalog, tasks, runners, reviews,
            review_queries, notifications, monitoring, jobs, health_checks, users, sessions,
            api_keys, data_wipe, costs, feedback, conversations, learnings, analysis);
    };
    (@ports $make:path; $($port:ident),*) => {
        $(
            #[tokio::test]
            async fn $port() {
                let (stores, _guard) = $make().await;
                $crate::contract::$port::run(&stores).await;
            }
        )*
    };
}
