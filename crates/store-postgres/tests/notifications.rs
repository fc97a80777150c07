//! The Postgres notification repository against a real database (one per test):
//! what only this adapter has (secrets sealed at rest, rows it cannot read). The
//! port's behaviour is the contract suite's (`reviewd_testkit::contract::notifications`),
//! run from `tests/contract.rs`.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

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

type EncColumns = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
);

async fn enc_columns(pool: &PgPool) -> EncColumns {
    let mut conn = pool.get().await.unwrap();
    notification_configs::table
        .select((
            notification_configs::smtp_password_enc,
            notification_configs::webhook_secret_enc,
            notification_configs::chat_a_bot_token_enc,
            notification_configs::chat_b_webhook_url_enc,
            notification_configs::chat_c_webhook_url_enc,
            notification_configs::chat_d_webhook_url_enc,
            notification_configs::chat_d_secret_enc,
            notification_configs::vapid_private_key_enc,
        ))
        .first(&mut conn)
        .await
        .unwrap()
}

#[tokio::test]
async fn every_secret_is_sealed_at_rest() {
    let db = TestDb::new().await;
    let (notifications, pool) = repo(&db).await;
    let config = full_config();
    notifications.save_config(&config).await.unwrap();

    let enc = enc_columns(&pool).await;
    let stored = [
        (&enc.0, "smtp-password"),
        (&enc.1, "webhook-secret"),
        (&enc.2, "chat-a-token"),
        (&enc.3, "chat-b-token"),
        (&enc.4, "chat-c-token"),
        (&enc.5, "chat-d-token"),
        (&enc.6, "chat-d-secret"),
        (&enc.7, "vapid-private"),
    ];
    for (column, plain) in stored {
        let column = column.as_deref().expect("a sealed value");
        assert!(column.starts_with("v1:"), "{column}");
        assert!(!column.contains(plain), "{plain} stored in clear");
        assert!(!column.contains("example.com"), "{column}");
    }

    // Another key cannot open them: an error, not silently missing secrets.
    let other_key = PgNotificationRepository::new(pool.clone(), SecretBox::from_key(&[9; 32]));
    assert!(matches!(other_key.config().await, Err(RepoError::Other(_))));

    // Clearing every secret stores NULLs.
    let cleared = NotificationConfig {
        smtp_password: None,
        webhook_secret: None,
        chat_a_bot_token: None,
        chat_b_webhook_url: None,
        chat_c_webhook_url: None,
        chat_d_webhook_url: None,
        chat_d_secret: None,
        vapid_private_key: None,
        smtp_port: None,
        ..config
    };
    assert_eq!(
        without_time(notifications.save_config(&cleared).await.unwrap()),
        cleared
    );
    assert_eq!(enc_columns(&pool).await, Default::default());
}

#[tokio::test]
async fn a_missing_config_row_reads_as_the_defaults_and_save_recreates_it() {
    let db = TestDb::new().await;
    let (notifications, pool) = repo(&db).await;
    execute_sql(&pool, "DELETE FROM notification_configs").await;
    let missing = notifications.config().await.unwrap();
    assert_eq!(missing, NotificationConfig::default());
    let saved = notifications.save_config(&full_config()).await.unwrap();
    assert_eq!(without_time(saved), full_config());
    assert_eq!(
        without_time(notifications.config().await.unwrap()),
        full_config()
    );
}

#[tokio::test]
async fn unknown_enum_text_in_a_row_is_a_corrupt_row() {
    let db = TestDb::new().await;
    let (notifications, pool) = repo(&db).await;
    let record = notifications
        .add_delivery(NewDelivery {
            review_id: None,
            channel: Channel::Email,
            notification_type: NotificationType::ReviewCompleted,
            recipient: None,
            payload: serde_json::json!({}),
        })
        .await
        .unwrap();
    execute_sql(
        &pool,
        &format!(
            "ALTER TABLE notification_history DROP CONSTRAINT notification_history_channel_check;
             UPDATE notification_history SET channel = 'fax' WHERE id = '{}'",
            record.id
        ),
    )
    .await;
    assert!(matches!(
        notifications.record(record.id).await,
        Err(RepoError::Other(e)) if e.to_string().contains("fax")
    ));
    assert!(matches!(
        notifications
            .history(&HistoryFilter::default(), PageRequest::new(1, 10, 100))
            .await,
        Err(RepoError::Other(_))
    ));
    assert!(matches!(
        notifications.stats(None, None).await,
        Err(RepoError::Other(_))
    ));
}

#[tokio::test]
async fn an_unreadable_digest_payload_marks_nothing_digested() {
    let db = TestDb::new().await;
    let (notifications, pool) = repo(&db).await;
    let review = reviews(&pool, 1).await[0];
    notifications
        .add_digest_event(NotificationType::ReviewCompleted, &event(review))
        .await
        .unwrap();
    execute_sql(
        &pool,
        "INSERT INTO notification_digest_events (event_type, payload)
              VALUES ('review_failed', '{\"reviewId\": \"not-a-uuid\"}')",
    )
    .await;
    let now = Utc::now() + Duration::seconds(1);
    assert!(matches!(
        notifications.take_digest_events(now).await,
        Err(RepoError::Other(_))
    ));
    execute_sql(
        &pool,
        "DELETE FROM notification_digest_events WHERE review_id IS NULL",
    )
    .await;
    assert_eq!(
        notifications.take_digest_events(now).await.unwrap().len(),
        1,
        "the readable event was left for the next digest"
    );
}

fn event(review_id: Uuid) -> ReviewEvent {
    ReviewEvent {
        review_id,
        project_name: "g/p".into(),
        mr_iid: 1,
        mr_title: "MR 1".into(),
        mr_url: "https://git.example.com/g/p/-/merge_requests/1".into(),
        author: None,
        status: "completed".into(),
        rating: Some("B".into()),
        score: Some(80),
        comment_count: 2,
        error_message: None,
    }
}
