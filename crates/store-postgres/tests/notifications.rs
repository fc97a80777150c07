//! The Postgres notification repository against a real database (one per test).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel_async::{RunQueryDsl, SimpleAsyncConnection};
use reviewd_crypto::SecretBox;
use reviewd_domain::PageRequest;
use reviewd_domain::model::notification::{
    Channel, DeliveryCount, DeliveryStatus, Frequency, HistoryFilter, NewPushSubscription,
    NotificationConfig, NotificationConfigPatch, NotificationType, ReviewEvent,
};
use reviewd_domain::model::{NewUser, Role, SecretString};
use reviewd_domain::ports::{NewDelivery, NotificationRepository, RepoError, UserRepository};
use reviewd_store_postgres::schema::notification_configs;
use reviewd_store_postgres::{PgNotificationRepository, PgPool, PgUserRepository};
use reviewd_testkit::TestDb;
use std::collections::HashSet;
use uuid::Uuid;

/// Now, at the database's resolution (microseconds), so bounds compare exactly.
fn now_micros() -> DateTime<Utc> {
    DateTime::from_timestamp_micros(Utc::now().timestamp_micros()).unwrap()
}

fn secrets() -> SecretBox {
    SecretBox::from_key(&[7; 32])
}

async fn repo(db: &TestDb) -> (PgNotificationRepository, PgPool) {
    let pool = db.pool().await;
    (PgNotificationRepository::new(pool.clone(), secrets()), pool)
}

async fn sql(pool: &PgPool, statements: &str) {
    let mut conn = pool.get().await.unwrap();
    conn.batch_execute(statements).await.unwrap();
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
    sql(pool, &statements).await;
    ids
}

fn full_config() -> NotificationConfig {
    NotificationConfig {
        email_enabled: true,
        smtp_host: Some("smtp.example.com".into()),
        smtp_port: Some(65_535),
        smtp_secure: false,
        smtp_username: Some("mailer".into()),
        smtp_password: Some("plain-smtp-password".into()),
        email_from: Some("reviewd@example.com".into()),
        email_recipients: vec!["a@example.com".into(), "b@example.com".into()],
        webhook_enabled: true,
        webhook_urls: vec!["https://hooks.example.com/x".into()],
        webhook_secret: Some("plain-webhook-secret".into()),
        chat_a_enabled: true,
        chat_a_bot_token: Some("plain-chat-a-token".into()),
        chat_a_channels: vec!["C1".into(), "C2".into()],
        chat_b_enabled: true,
        chat_b_webhook_url: Some("https://chat-b.example.com/plain-chat-b-token".into()),
        chat_c_enabled: true,
        chat_c_webhook_url: Some("https://chat-c.example.com/plain-chat-c-token".into()),
        chat_d_enabled: true,
        chat_d_webhook_url: Some("https://chat-d.example.com/plain-chat-d-token".into()),
        chat_d_secret: Some("plain-chat-d-secret".into()),
        push_enabled: true,
        vapid_public_key: Some("BPublicKey".into()),
        vapid_private_key: Some("plain-vapid-private".into()),
        vapid_subject: Some("mailto:ops@example.com".into()),
        notify_on_review_completed: false,
        notify_on_review_failed: false,
        notify_on_rating_low: false,
        rating_threshold: 42,
        notification_frequency: Frequency::Weekly,
        updated_at: None,
    }
}

fn without_time(mut c: NotificationConfig) -> NotificationConfig {
    assert!(c.updated_at.is_some(), "updated_at comes from the row");
    c.updated_at = None;
    c
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
async fn config_round_trips_with_every_secret_sealed() {
    let db = TestDb::new().await;
    let (notifications, pool) = repo(&db).await;

    let initial = notifications.config().await.unwrap();
    assert_eq!(without_time(initial), NotificationConfig::default());

    let config = full_config();
    let saved = notifications.save_config(&config).await.unwrap();
    assert_eq!(without_time(saved), config);
    assert_eq!(without_time(notifications.config().await.unwrap()), config);

    let enc = enc_columns(&pool).await;
    let stored = [
        (&enc.0, "plain-smtp-password"),
        (&enc.1, "plain-webhook-secret"),
        (&enc.2, "plain-chat-a-token"),
        (&enc.3, "plain-chat-b-token"),
        (&enc.4, "plain-chat-c-token"),
        (&enc.5, "plain-chat-d-token"),
        (&enc.6, "plain-chat-d-secret"),
        (&enc.7, "plain-vapid-private"),
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
async fn a_patched_save_keeps_the_other_fields() {
    let db = TestDb::new().await;
    let (notifications, _pool) = repo(&db).await;
    let first = notifications.save_config(&full_config()).await.unwrap();

    let patch = NotificationConfigPatch {
        email_enabled: Some(false),
        smtp_password: Some(Some(SecretString::new("rotated"))),
        chat_d_secret: Some(None),
        rating_threshold: Some(90),
        notification_frequency: Some(Frequency::Daily),
        ..Default::default()
    };
    let current = notifications.config().await.unwrap();
    let saved = notifications
        .save_config(&patch.apply(current))
        .await
        .unwrap();
    assert!(saved.updated_at >= first.updated_at);

    let expected = NotificationConfig {
        email_enabled: false,
        smtp_password: Some("rotated".into()),
        chat_d_secret: None,
        rating_threshold: 90,
        notification_frequency: Frequency::Daily,
        ..full_config()
    };
    assert_eq!(
        without_time(notifications.config().await.unwrap()),
        expected
    );
}

#[tokio::test]
async fn a_missing_config_row_reads_as_the_defaults_and_save_recreates_it() {
    let db = TestDb::new().await;
    let (notifications, pool) = repo(&db).await;
    sql(&pool, "DELETE FROM notification_configs").await;
    let missing = notifications.config().await.unwrap();
    assert_eq!(missing, NotificationConfig::default());
    let saved = notifications.save_config(&full_config()).await.unwrap();
    assert_eq!(without_time(saved), full_config());
    assert_eq!(
        without_time(notifications.config().await.unwrap()),
        full_config()
    );
}

fn delivery(review_id: Option<Uuid>, channel: Channel, kind: NotificationType) -> NewDelivery {
    NewDelivery {
        review_id,
        channel,
        notification_type: kind,
        recipient: Some("a@example.com".into()),
        payload: serde_json::json!({ "title": "t" }),
    }
}

/// Moves a record's `created_at`.
async fn backdate(pool: &PgPool, id: Uuid, at: DateTime<Utc>) {
    sql(
        pool,
        &format!(
            "UPDATE notification_history SET created_at = '{}' WHERE id = '{id}'",
            at.to_rfc3339()
        ),
    )
    .await;
}

#[tokio::test]
async fn history_filters_pages_and_counts() {
    let db = TestDb::new().await;
    let (notifications, pool) = repo(&db).await;
    let review = reviews(&pool, 1).await[0];
    let now = now_micros();
    let day = |n: i64| now - Duration::days(n);

    // (channel, type, review, status after one attempt, created days ago)
    let plan = [
        (
            Channel::Email,
            NotificationType::ReviewCompleted,
            Some(review),
            DeliveryStatus::Sent,
            5,
        ),
        (
            Channel::Email,
            NotificationType::ReviewFailed,
            Some(review),
            DeliveryStatus::Failed,
            4,
        ),
        (
            Channel::Webhook,
            NotificationType::ReviewCompleted,
            Some(review),
            DeliveryStatus::Sent,
            3,
        ),
        (
            Channel::Push,
            NotificationType::RatingLow,
            None,
            DeliveryStatus::Pending,
            2,
        ),
        (
            Channel::Email,
            NotificationType::DailySummary,
            None,
            DeliveryStatus::Sent,
            1,
        ),
    ];
    let mut ids = Vec::new();
    for (channel, kind, review_id, status, age) in plan {
        let record = notifications
            .add_delivery(delivery(review_id, channel, kind))
            .await
            .unwrap();
        assert_eq!(
            (record.status, record.attempts, record.sent_at),
            (DeliveryStatus::Pending, 0, None)
        );
        if status != DeliveryStatus::Pending {
            notifications
                .finish_attempt(record.id, status, None)
                .await
                .unwrap();
        }
        backdate(&pool, record.id, day(age)).await;
        ids.push(record.id);
    }

    let all = PageRequest::new(1, 100, 100);
    let list = |filter: HistoryFilter, page: PageRequest| {
        let notifications = &notifications;
        async move {
            let page = notifications.history(&filter, page).await.unwrap();
            let ids: Vec<Uuid> = page.items.iter().map(|r| r.id).collect();
            (page.total, ids)
        }
    };

    // Newest first.
    let (total, newest_first) = list(HistoryFilter::default(), all).await;
    assert_eq!(total, 5);
    assert_eq!(newest_first, ids.iter().rev().copied().collect::<Vec<_>>());

    // Pages keep the total of the whole filtered set.
    let (total, second) = list(HistoryFilter::default(), PageRequest::new(2, 2, 100)).await;
    assert_eq!((total, second), (5, vec![ids[2], ids[1]]));
    let (total, last) = list(HistoryFilter::default(), PageRequest::new(3, 2, 100)).await;
    assert_eq!((total, last), (5, vec![ids[0]]));

    let by = |f: fn(&mut HistoryFilter)| {
        let mut filter = HistoryFilter::default();
        f(&mut filter);
        filter
    };
    assert_eq!(
        list(by(|f| f.channel = Some(Channel::Email)), all).await,
        (3, vec![ids[4], ids[1], ids[0]])
    );
    assert_eq!(
        list(by(|f| f.status = Some(DeliveryStatus::Sent)), all).await,
        (3, vec![ids[4], ids[2], ids[0]])
    );
    assert_eq!(
        list(
            by(|f| f.notification_type = Some(NotificationType::ReviewCompleted)),
            all
        )
        .await,
        (2, vec![ids[2], ids[0]])
    );
    let of_review = HistoryFilter {
        review_id: Some(review),
        ..Default::default()
    };
    assert_eq!(
        list(of_review.clone(), all).await,
        (3, vec![ids[2], ids[1], ids[0]])
    );
    // Filters combine.
    let failed_email_of_review = HistoryFilter {
        channel: Some(Channel::Email),
        status: Some(DeliveryStatus::Failed),
        ..of_review
    };
    assert_eq!(list(failed_email_of_review, all).await, (1, vec![ids[1]]));

    // start is inclusive, end exclusive: [4 days ago, 2 days ago) holds days 4 and 3.
    let window = HistoryFilter {
        start: Some(day(4)),
        end: Some(day(2)),
        ..Default::default()
    };
    assert_eq!(list(window, all).await, (2, vec![ids[2], ids[1]]));
    let since = HistoryFilter {
        start: Some(day(2)),
        ..Default::default()
    };
    assert_eq!(list(since, all).await, (2, vec![ids[4], ids[3]]));

    let record = notifications.record(ids[3]).await.unwrap();
    assert_eq!(
        (record.channel, record.notification_type, record.review_id),
        (Channel::Push, NotificationType::RatingLow, None)
    );
    assert!(matches!(
        notifications.record(Uuid::new_v4()).await,
        Err(RepoError::NotFound)
    ));

    let count = |channel, status, count| DeliveryCount {
        channel,
        status,
        count,
    };
    let mut stats = notifications.stats(None, None).await.unwrap();
    stats.sort_by_key(|c| (c.channel.as_str(), c.status.as_str()));
    assert_eq!(
        stats,
        vec![
            count(Channel::Email, DeliveryStatus::Failed, 1),
            count(Channel::Email, DeliveryStatus::Sent, 2),
            count(Channel::Push, DeliveryStatus::Pending, 1),
            count(Channel::Webhook, DeliveryStatus::Sent, 1),
        ]
    );
    let mut window = notifications
        .stats(Some(day(5)), Some(day(3)))
        .await
        .unwrap();
    window.sort_by_key(|c| (c.channel.as_str(), c.status.as_str()));
    assert_eq!(
        window,
        vec![
            count(Channel::Email, DeliveryStatus::Failed, 1),
            count(Channel::Email, DeliveryStatus::Sent, 1),
        ]
    );
    assert!(
        notifications
            .stats(Some(now + Duration::hours(1)), None)
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn finish_attempt_counts_attempts_and_stamps_sent_at() {
    let db = TestDb::new().await;
    let (notifications, _pool) = repo(&db).await;
    let record = notifications
        .add_delivery(delivery(
            None,
            Channel::Webhook,
            NotificationType::ReviewFailed,
        ))
        .await
        .unwrap();

    notifications
        .finish_attempt(record.id, DeliveryStatus::Pending, Some("HTTP 503"))
        .await
        .unwrap();
    let retrying = notifications.record(record.id).await.unwrap();
    assert_eq!(
        (
            retrying.status,
            retrying.attempts,
            retrying.error_message.as_deref(),
            retrying.sent_at
        ),
        (DeliveryStatus::Pending, 1, Some("HTTP 503"), None)
    );

    notifications
        .finish_attempt(record.id, DeliveryStatus::Failed, Some("HTTP 500"))
        .await
        .unwrap();
    let failed = notifications.record(record.id).await.unwrap();
    assert_eq!(
        (failed.status, failed.attempts, failed.sent_at),
        (DeliveryStatus::Failed, 2, None)
    );

    notifications
        .finish_attempt(record.id, DeliveryStatus::Sent, None)
        .await
        .unwrap();
    let sent = notifications.record(record.id).await.unwrap();
    assert_eq!(
        (sent.status, sent.attempts, sent.error_message),
        (DeliveryStatus::Sent, 3, None)
    );
    let sent_at = sent.sent_at.expect("sent_at is set");
    assert!(sent_at >= sent.created_at);

    assert!(matches!(
        notifications
            .finish_attempt(Uuid::new_v4(), DeliveryStatus::Sent, None)
            .await,
        Err(RepoError::NotFound)
    ));
}

#[tokio::test]
async fn clean_deletes_records_older_than_the_cutoff() {
    let db = TestDb::new().await;
    let (notifications, pool) = repo(&db).await;
    let now = now_micros();
    let mut ids = Vec::new();
    for age in [10, 8, 1] {
        let record = notifications
            .add_delivery(delivery(
                None,
                Channel::Email,
                NotificationType::ReviewCompleted,
            ))
            .await
            .unwrap();
        backdate(&pool, record.id, now - Duration::days(age)).await;
        ids.push(record.id);
    }
    assert_eq!(
        notifications.clean(now - Duration::days(7)).await.unwrap(),
        2
    );
    assert_eq!(
        notifications.clean(now - Duration::days(7)).await.unwrap(),
        0
    );
    let left = notifications
        .history(&HistoryFilter::default(), PageRequest::new(1, 10, 100))
        .await
        .unwrap();
    assert_eq!(
        left.items.iter().map(|r| r.id).collect::<Vec<_>>(),
        [ids[2]]
    );
}

#[tokio::test]
async fn unknown_enum_text_in_a_row_is_a_corrupt_row() {
    let db = TestDb::new().await;
    let (notifications, pool) = repo(&db).await;
    let record = notifications
        .add_delivery(delivery(
            None,
            Channel::Email,
            NotificationType::ReviewCompleted,
        ))
        .await
        .unwrap();
    sql(
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

fn event(review_id: Uuid, n: i64) -> ReviewEvent {
    ReviewEvent {
        review_id,
        project_name: "g/p".into(),
        mr_iid: n,
        mr_title: format!("MR {n}"),
        mr_url: format!("https://git.example.com/g/p/-/merge_requests/{n}"),
        author: (n % 2 == 0).then(|| "alice".into()),
        status: if n % 3 == 0 { "failed" } else { "completed" }.into(),
        rating: (n % 2 == 1).then(|| "B".into()),
        score: (n % 2 == 1).then_some(u32::try_from(n).unwrap() * 10),
        comment_count: i32::try_from(n).unwrap(),
        error_message: (n % 3 == 0).then(|| "boom".into()),
    }
}

fn kind_of(n: i64) -> NotificationType {
    match n % 3 {
        0 => NotificationType::ReviewFailed,
        1 => NotificationType::ReviewCompleted,
        _ => NotificationType::RatingLow,
    }
}

#[tokio::test]
async fn digest_events_are_taken_once_oldest_first() {
    let db = TestDb::new().await;
    let (notifications, pool) = repo(&db).await;
    let review_ids = reviews(&pool, 4).await;
    let now = now_micros();
    for (n, id) in (1_i64..).zip(&review_ids) {
        notifications
            .add_digest_event(kind_of(n), &event(*id, n))
            .await
            .unwrap();
    }
    // Events 1..=3 happened hours ago (1 the oldest); event 4 after the digest's end.
    for (n, id) in (1_i64..).zip(&review_ids) {
        let at = if n == 4 {
            now + Duration::minutes(5)
        } else {
            now - Duration::hours(10 - n)
        };
        sql(
            &pool,
            &format!(
                "UPDATE notification_digest_events SET created_at = '{}' WHERE review_id = '{id}'",
                at.to_rfc3339()
            ),
        )
        .await;
    }

    let taken = notifications.take_digest_events(now).await.unwrap();
    let expected: Vec<(NotificationType, ReviewEvent)> = (1_i64..=3)
        .zip(&review_ids)
        .map(|(n, id)| (kind_of(n), event(*id, n)))
        .collect();
    assert_eq!(
        taken
            .iter()
            .map(|(k, e, _)| (*k, e.clone()))
            .collect::<Vec<_>>(),
        expected
    );
    assert!(taken.windows(2).all(|w| w[0].2 < w[1].2), "oldest first");
    assert_eq!(taken[0].2, now - Duration::hours(9));

    assert!(
        notifications
            .take_digest_events(now)
            .await
            .unwrap()
            .is_empty(),
        "taken events are not taken again"
    );
    let later = notifications
        .take_digest_events(now + Duration::hours(1))
        .await
        .unwrap();
    assert_eq!(
        later
            .into_iter()
            .map(|(k, e, _)| (k, e))
            .collect::<Vec<_>>(),
        [(kind_of(4), event(review_ids[3], 4))]
    );
}

#[tokio::test]
async fn an_unreadable_digest_payload_marks_nothing_digested() {
    let db = TestDb::new().await;
    let (notifications, pool) = repo(&db).await;
    let review = reviews(&pool, 1).await[0];
    notifications
        .add_digest_event(NotificationType::ReviewCompleted, &event(review, 1))
        .await
        .unwrap();
    sql(
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
    sql(
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_takes_split_the_events_without_overlap() {
    let db = TestDb::new().await;
    let pool = db.pool().await;
    let review_ids = reviews(&pool, 60).await;
    let a = PgNotificationRepository::new(pool.clone(), secrets());
    let b = PgNotificationRepository::new(pool.clone(), secrets());
    for (n, id) in (1_i64..).zip(&review_ids) {
        a.add_digest_event(kind_of(n), &event(*id, n))
            .await
            .unwrap();
    }
    let until = Utc::now() + Duration::seconds(1);
    let (left, right) = tokio::join!(
        tokio::spawn(async move { a.take_digest_events(until).await.unwrap() }),
        tokio::spawn(async move { b.take_digest_events(until).await.unwrap() }),
    );
    let ids = |taken: Vec<(NotificationType, ReviewEvent, DateTime<Utc>)>| {
        taken
            .into_iter()
            .map(|(_, e, _)| e.review_id)
            .collect::<Vec<_>>()
    };
    let (left, right) = (ids(left.unwrap()), ids(right.unwrap()));
    let left_set: HashSet<Uuid> = left.iter().copied().collect();
    let right_set: HashSet<Uuid> = right.iter().copied().collect();
    assert_eq!(left_set.len(), left.len());
    assert_eq!(right_set.len(), right.len());
    assert!(left_set.is_disjoint(&right_set), "an event was taken twice");
    assert_eq!(
        left_set.union(&right_set).copied().collect::<HashSet<_>>(),
        review_ids.iter().copied().collect::<HashSet<_>>()
    );
}

fn new_user(email: &str) -> NewUser {
    NewUser {
        email: email.into(),
        name: "N".into(),
        password_hash: "h".into(),
        role: Role::Maintainer,
        is_root: false,
    }
}

fn subscription(user_id: Uuid, endpoint: &str, key: &str) -> NewPushSubscription {
    NewPushSubscription {
        user_id,
        endpoint: endpoint.into(),
        p256dh: format!("p256dh-{key}"),
        auth: format!("auth-{key}"),
        user_agent: Some(format!("agent-{key}")),
        expires_at: None,
    }
}

#[tokio::test]
async fn push_subscriptions_upsert_touch_unsubscribe_and_expire() {
    let db = TestDb::new().await;
    let (notifications, pool) = repo(&db).await;
    let users = PgUserRepository::new(pool.clone());
    let alice = users.create(new_user("alice@example.com")).await.unwrap();
    let bob = users.create(new_user("bob@example.com")).await.unwrap();

    let first = notifications
        .subscribe(subscription(alice.id, "https://push.example.com/1", "a1"))
        .await
        .unwrap();
    assert_eq!(
        (
            first.user_id,
            first.p256dh.as_str(),
            first.auth.as_str(),
            first.user_agent.as_deref(),
            first.last_used_at,
            first.expires_at
        ),
        (
            Some(alice.id),
            "p256dh-a1",
            "auth-a1",
            Some("agent-a1"),
            None,
            None
        )
    );
    let second = notifications
        .subscribe(subscription(alice.id, "https://push.example.com/2", "a2"))
        .await
        .unwrap();
    let bobs = notifications
        .subscribe(subscription(bob.id, "https://push.example.com/3", "b1"))
        .await
        .unwrap();

    // A known endpoint is updated in place: new keys, new owner, same row.
    let moved = notifications
        .subscribe(subscription(bob.id, "https://push.example.com/1", "b2"))
        .await
        .unwrap();
    assert_eq!(
        (
            moved.id,
            moved.created_at,
            moved.user_id,
            moved.p256dh.as_str(),
            moved.auth.as_str(),
            moved.user_agent.as_deref()
        ),
        (
            first.id,
            first.created_at,
            Some(bob.id),
            "p256dh-b2",
            "auth-b2",
            Some("agent-b2")
        )
    );

    let ids = |subs: Vec<reviewd_domain::model::notification::PushSubscription>| {
        subs.into_iter().map(|s| s.id).collect::<Vec<_>>()
    };
    // Newest first (each subscribe ran in its own transaction, so now() grew).
    assert_eq!(
        ids(notifications.subscriptions(None).await.unwrap()),
        [bobs.id, second.id, first.id]
    );
    assert_eq!(
        ids(notifications.subscriptions(Some(alice.id)).await.unwrap()),
        [second.id]
    );
    assert_eq!(
        ids(notifications.subscriptions(Some(bob.id)).await.unwrap()),
        [bobs.id, first.id]
    );
    assert!(
        notifications
            .subscriptions(Some(Uuid::new_v4()))
            .await
            .unwrap()
            .is_empty()
    );

    notifications
        .touch("https://push.example.com/2")
        .await
        .unwrap();
    let touched = notifications.subscriptions(Some(alice.id)).await.unwrap();
    assert!(touched[0].last_used_at.is_some());
    assert!(matches!(
        notifications.touch("https://push.example.com/none").await,
        Err(RepoError::NotFound)
    ));

    notifications
        .unsubscribe("https://push.example.com/2")
        .await
        .unwrap();
    assert!(matches!(
        notifications
            .unsubscribe("https://push.example.com/2")
            .await,
        Err(RepoError::NotFound)
    ));
    assert!(
        notifications
            .subscriptions(Some(alice.id))
            .await
            .unwrap()
            .is_empty()
    );

    // expires_at is not set through the port (browsers rarely send one): set it here.
    sql(
        &pool,
        "UPDATE push_subscriptions SET expires_at = now() - interval '1 minute'
          WHERE endpoint = 'https://push.example.com/1';
         UPDATE push_subscriptions SET expires_at = now() + interval '1 day'
          WHERE endpoint = 'https://push.example.com/3';",
    )
    .await;
    assert_eq!(notifications.clean_subscriptions().await.unwrap(), 1);
    assert_eq!(notifications.clean_subscriptions().await.unwrap(), 0);
    assert_eq!(
        ids(notifications.subscriptions(None).await.unwrap()),
        [bobs.id]
    );

    // An unknown owner is refused by the foreign key.
    assert!(matches!(
        notifications
            .subscribe(subscription(
                Uuid::new_v4(),
                "https://push.example.com/4",
                "x"
            ))
            .await,
        Err(RepoError::NotFound)
    ));
}
