//! The repository port contract suites (`reviewd_testkit::contract`) against the
//! PostgreSQL adapters, each on a fresh database.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

mod backlog;
mod batches;
mod duplicates;

use diesel_async::AsyncPgConnection;
use diesel_async::pooled_connection::AsyncDieselConnectionManager;
use reviewd_crypto::SecretBox;
use reviewd_store_postgres::{
    PgAiConfigRepository, PgApiKeyRepository, PgCatalogRepository, PgConversationRepository,
    PgDataWipe, PgFeedbackRepository, PgHealthCheckRepository, PgHealthProbe, PgJobLedger,
    PgMonitoringRepository, PgNotificationRepository, PgPlatformConfigRepository, PgPool,
    PgProjectRepository, PgReviewQueries, PgReviewRepository, PgRunnerRepository,
    PgSessionRepository, PgSettingsRepository, PgTaskRepository, PgUserRepository,
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
        ai_configs: Arc::new(PgAiConfigRepository::new(pool.clone(), secrets.clone())),
        projects: Arc::new(PgProjectRepository::new(pool.clone())),
        settings: Arc::new(PgSettingsRepository::new(pool.clone())),
        catalog: Arc::new(PgCatalogRepository::new(pool.clone())),
        tasks: Arc::new(PgTaskRepository::new(pool.clone())),
        runners: Arc::new(PgRunnerRepository::new(pool.clone())),
        reviews: Arc::new(PgReviewRepository::new(pool.clone())),
        feedback: Arc::new(PgFeedbackRepository::new(pool.clone())),
        review_queries: Arc::new(PgReviewQueries::new(pool.clone())),
        notifications: Arc::new(PgNotificationRepository::new(pool.clone(), secrets)),
        monitoring: Arc::new(PgMonitoringRepository::new(pool.clone())),
        jobs: Arc::new(PgJobLedger::new(pool.clone())),
        health_checks: Arc::new(PgHealthCheckRepository::new(pool.clone())),
        users: Arc::new(PgUserRepository::new(pool.clone())),
        sessions: Arc::new(PgSessionRepository::new(pool.clone())),
        api_keys: Arc::new(PgApiKeyRepository::new(pool.clone())),
        conversations: Arc::new(PgConversationRepository::new(pool.clone())),
        learnings: Arc::new(PgConversationRepository::new(pool.clone())),
        analysis: Arc::new(reviewd_store_postgres::PgAnalysisRepository::new(
            pool.clone(),
        )),
        wipe: Arc::new(PgDataWipe::new(pool)),
    };
    (stores, db)
}

reviewd_testkit::repository_contract_tests!(postgres);

/// Days pass for the rows, since the database's clock cannot be moved.
struct PgCalendar(PgPool);

#[async_trait::async_trait]
impl reviewd_testkit::contract::costs::Calendar for PgCalendar {
    async fn days_pass(&self, days: u32) {
        let mut conn = self.0.get().await.unwrap();
        for table in ["reviews", "ai_call_logs"] {
            diesel_async::RunQueryDsl::execute(
                diesel::sql_query(format!(
                    "UPDATE {table} SET created_at = created_at - make_interval(days => {days})"
                )),
                &mut conn,
            )
            .await
            .unwrap();
        }
    }
}

#[tokio::test]
async fn costs_by_day() {
    let (stores, db) = postgres().await;
    let calendar = PgCalendar(db.pool().await);
    reviewd_testkit::contract::costs::by_day(&stores, &calendar).await;
}

#[tokio::test]
async fn health_probe() {
    let db = TestDb::new().await;
    // `connect` refuses an unreachable server: the pool is built without its check.
    let manager = AsyncDieselConnectionManager::<AsyncPgConnection>::new(
        "postgres://reviewd@127.0.0.1:1/reviewd",
    );
    let unreachable: PgPool = PgPool::builder(manager).build().unwrap();
    reviewd_testkit::contract::health_probe::run(
        &PgHealthProbe::new(db.pool().await),
        &PgHealthProbe::new(unreachable),
    )
    .await;
}

#[derive(diesel::QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}
