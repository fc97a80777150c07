//! The Postgres notification repository against a real database (one per test):
//! what only this adapter has (secrets sealed at rest, rows it cannot read). The
//! port's behaviour is the contract suite's (`reviewd_testkit::contract::notifications`),
//! run from `tests/contract.rs`.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

mod corrupt_rows;
mod secrets;

use chrono::{Duration, Utc};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use reviewd_crypto::SecretBox;
use reviewd_domain::PageRequest;
use reviewd_domain::model::notification::{
    Channel, HistoryFilter, NotificationConfig, NotificationType, ReviewEvent,
};
use reviewd_domain::ports::{NewDelivery, NotificationRepository, RepoError};
use reviewd_store_postgres::schema::notification_configs;
use reviewd_store_postgres::{PgNotificationRepository, PgPool};
use reviewd_testkit::contract::notifications::{full_config, without_time};
use reviewd_testkit::{TestDb, execute_sql};
use uuid::Uuid;

fn secrets() -> SecretBox {
    SecretBox::from_key(&[7; 32])
}

async fn repo(db: &TestDb) -> (PgNotificationRepository, PgPool) {
    let pool = db.pool().await;
    (PgNotificationRepository::new(pool.clone(), secrets()), pool)
}

/// A platform config, a project and `n` reviews of it (history and digest events
/// reference reviews).
async fn reviews(pool: &PgPool, n: usize) -> Vec<Uuid> {
    let (config, project) = (Uuid::new_v4(), Uuid::new_v4());
    let ids: Vec<Uuid> = (0..n).map(|_| Uuid::new_v4()).collect();
    let mut statements = format!(
        "INSERT INTO platform_configs (id, name, platform_type, base_url)
              VALUES ('{config}', 'g', 'hostA', 'https://git.example.com');
         INSERT INTO projects (id, platform_config_id, platform_type, platform_project_id,
                               name, full_path, web_url)
              VALUES ('{project}', '{config}', 'hostA', '1', 'p', 'g/p', 'https://git.example.com/g/p');"
    );
    for (i, id) in ids.iter().enumerate() {
        statements.push_str(&format!(
            "INSERT INTO reviews (id, project_id, project_name, mr_iid, mr_title, mr_url,
                                  source_branch, target_branch, ai_provider, ai_model,
                                  triggered_by, head_commit_sha)
                  VALUES ('{id}', '{project}', 'p', {i}, 't', 'u', 's', 'main', 'a', 'm',
                          'auto', 'abc');"
        ));
    }
    execute_sql(pool, &statements).await;
    ids
}
