//! The repository port contract suites (`reviewd_testkit::contract`) against the
//! PostgreSQL adapters, each on a fresh database.

use reviewd_crypto::SecretBox;
use reviewd_store_postgres::{
    PgCatalogRepository, PgHealthCheckRepository, PgJobLedger, PgMonitoringRepository,
    PgNotificationRepository, PgPlatformConfigRepository, PgProjectRepository, PgReviewQueries,
    PgReviewRepository, PgRunnerRepository, PgSettingsRepository, PgTaskRepository,
};
use reviewd_testkit::TestDb;
use reviewd_testkit::contract::Stores;
use std::sync::Arc;

async fn postgres() -> (Stores, TestDb) {
    let db = TestDb::new().await;
    let pool = db.pool().await;
    let secrets = SecretBox::from_key(&[7; 32]);
    let stores = Stores {
        platform_configs: Arc::new(PgPlatformConfigRepository::new(
            pool.clone(),
            secrets.clone(),
        )),
        projects: Arc::new(PgProjectRepository::new(pool.clone())),
        settings: Arc::new(PgSettingsRepository::new(pool.clone())),
        catalog: Arc::new(PgCatalogRepository::new(pool.clone())),
        tasks: Arc::new(PgTaskRepository::new(pool.clone())),
        runners: Arc::new(PgRunnerRepository::new(pool.clone())),
        reviews: Arc::new(PgReviewRepository::new(pool.clone())),
        review_queries: Arc::new(PgReviewQueries::new(pool.clone())),
        notifications: Arc::new(PgNotificationRepository::new(pool.clone(), secrets)),
        monitoring: Arc::new(PgMonitoringRepository::new(pool.clone())),
        jobs: Arc::new(PgJobLedger::new(pool.clone())),
        health_checks: Arc::new(PgHealthCheckRepository::new(pool)),
    };
    (stores, db)
}

reviewd_testkit::repository_contract_tests!(postgres);
