//! The `NotificationRepository` contract: the one settings row, the delivery
//! history (attempts, stale pending deliveries, filters, pages, counts, cleaning),
//! the digest queue, and — in [`push_subscriptions`], which needs users the store
//! knows — browser push subscriptions.
//!
//! Times come from the store itself (a record's `created_at`), never from this
//! process's clock, so the cases hold on a store whose clock is not the wall's.
//! Time windows are half-open: `start <= created_at < end`.

use super::{Stores, seed};
use chrono::{DateTime, TimeZone, Utc};
use reviewd_domain::PageRequest;
use reviewd_domain::model::SecretString;
use reviewd_domain::model::notification::{
    Channel, DeliveryCount, DeliveryStatus, Frequency, HistoryFilter, NewPushSubscription,
    NotificationConfig, NotificationConfigPatch, NotificationRecord, NotificationType,
    PushSubscription, ReviewEvent,
};
use reviewd_domain::ports::{NewDelivery, NotificationRepository, RepoError};
use uuid::Uuid;

/// Every case but the push subscriptions, in order. The first needs a fresh store
/// (the settings as seeded); cleaning deletes every older record, so it comes after
/// the other history cases.
pub async fn run(s: &Stores) {
    config_starts_as_the_seeded_defaults(s).await;
    a_saved_config_reads_back_whole(s).await;
    a_patched_save_keeps_the_other_fields(s).await;
    out_of_range_settings_conflict(s).await;
    let project = seed::project(s).await;
    let review = seed::review(s, &project, 1, "head1").await.id;
    attempts_are_counted_and_a_delivery_stamped_when_sent(s).await;
    unknown_ids_are_not_found(s).await;
    history_is_newest_first_filtered_and_paged(s, review).await;
    stats_count_each_channel_and_status(s, review).await;
    stale_pending_deliveries_are_taken_once_oldest_first(s).await;
    clean_deletes_the_records_created_before_the_cutoff(s).await;
    digest_events_are_taken_once_oldest_first(s, review).await;
    concurrent_digest_takes_split_the_events(s, review).await;
}

fn long_ago() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2000, 1, 1, 0, 0, 0).unwrap()
}

fn far_ahead() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2200, 1, 1, 0, 0, 0).unwrap()
}

/// Every setting away from its default, every secret set.
fn full_config() -> NotificationConfig {
    NotificationConfig {
        email_enabled: true,
        smtp_host: Some("smtp.example.com".into()),
        smtp_port: Some(65_535),
        smtp_secure: false,
        smtp_username: Some("mailer".into()),
        smtp_password: Some("smtp-password".into()),
        email_from: Some("reviewd@example.com".into()),
        email_recipients: vec!["a@example.com".into(), "b@example.com".into()],
        webhook_enabled: true,
        webhook_urls: vec!["https://hooks.example.com/x".into()],
        webhook_secret: Some("webhook-secret".into()),
        chat_a_enabled: true,
        chat_a_bot_token: Some("chat-a-token".into()),
        chat_a_channels: vec!["C1".into(), "C2".into()],
        chat_b_enabled: true,
        chat_b_webhook_url: Some("https://chat-b.example.com/chat-b-token".into()),
        chat_c_enabled: true,
        chat_c_webhook_url: Some("https://chat-c.example.com/chat-c-token".into()),
        chat_d_enabled: true,
        chat_d_webhook_url: Some("https://chat-d.example.com/chat-d-token".into()),
        chat_d_secret: Some("chat-d-secret".into()),
        push_enabled: true,
        vapid_public_key: Some("BPublicKey".into()),
        vapid_private_key: Some("vapid-private".into()),
        vapid_subject: Some("mailto:ops@example.com".into()),
        notify_on_review_completed: false,
        notify_on_review_failed: false,
        notify_on_rating_low: false,
        rating_threshold: 42,
        notification_frequency: Frequency::Weekly,
        updated_at: None,
    }
}

/// `c` without its `updated_at`, which the store sets.
fn without_time(mut c: NotificationConfig) -> NotificationConfig {
    assert!(
        c.updated_at.is_some(),
        "the stored settings carry updated_at"
    );
    c.updated_at = None;
    c
}

async fn config_starts_as_the_seeded_defaults(s: &Stores) {
    let initial = s.notifications.config().await.unwrap();
    assert_eq!(without_time(initial), NotificationConfig::default());
}

async fn a_saved_config_reads_back_whole(s: &Stores) {
    let n = &s.notifications;
    let config = full_config();
    assert_eq!(without_time(n.save_config(&config).await.unwrap()), config);
    assert_eq!(without_time(n.config().await.unwrap()), config);

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
        without_time(n.save_config(&cleared).await.unwrap()),
        cleared
    );
    assert_eq!(without_time(n.config().await.unwrap()), cleared);
}

async fn a_patched_save_keeps_the_other_fields(s: &Stores) {
    let n = &s.notifications;
    let first = n.save_config(&full_config()).await.unwrap();
    let patch = NotificationConfigPatch {
        email_enabled: Some(false),
        smtp_password: Some(Some(SecretString::new("rotated"))),
        chat_d_secret: Some(None),
        rating_threshold: Some(90),
        notification_frequency: Some(Frequency::Daily),
        ..Default::default()
    };
    let current = n.config().await.unwrap();
    let saved = n.save_config(&patch.apply(current)).await.unwrap();
    assert!(saved.updated_at >= first.updated_at);
    let expected = NotificationConfig {
        email_enabled: false,
        smtp_password: Some("rotated".into()),
        chat_d_secret: None,
        rating_threshold: 90,
        notification_frequency: Frequency::Daily,
        ..full_config()
    };
    assert_eq!(without_time(n.config().await.unwrap()), expected);
}

async fn out_of_range_settings_conflict(s: &Stores) {
    let n = &s.notifications;
    let before = n.config().await.unwrap();
    for bad in [
        NotificationConfig {
            smtp_port: Some(0),
            ..full_config()
        },
        NotificationConfig {
            rating_threshold: 101,
            ..full_config()
        },
        NotificationConfig {
            rating_threshold: -1,
            ..full_config()
        },
    ] {
        let refused = n.save_config(&bad).await;
        assert!(
            matches!(refused, Err(RepoError::Conflict(_))),
            "{refused:?}"
        );
    }
    assert_eq!(n.config().await.unwrap(), before);
}

fn delivery(channel: Channel, kind: NotificationType, review_id: Option<Uuid>) -> NewDelivery {
    NewDelivery {
        review_id,
        channel,
        notification_type: kind,
        recipient: Some(format!("{}@example.com", Uuid::new_v4().simple())),
        payload: serde_json::json!({ "title": format!("{kind:?} on {channel:?}") }),
    }
}

async fn attempts_are_counted_and_a_delivery_stamped_when_sent(s: &Stores) {
    let n = &s.notifications;
    let new = delivery(Channel::Webhook, NotificationType::ReviewFailed, None);
    let record = n.add_delivery(new.clone()).await.unwrap();
    assert_eq!(
        (
            record.channel,
            record.notification_type,
            record.recipient.as_deref(),
            record.status,
            record.attempts,
            record.sent_at,
            record.error_message.as_deref(),
        ),
        (
            Channel::Webhook,
            NotificationType::ReviewFailed,
            new.recipient.as_deref(),
            DeliveryStatus::Pending,
            0,
            None,
            None
        )
    );
    assert_eq!(n.record(record.id).await.unwrap(), record);

    let finish = async |status, error| {
        n.finish_attempt(record.id, status, error).await.unwrap();
        n.record(record.id).await.unwrap()
    };
    let retrying = finish(DeliveryStatus::Pending, Some("HTTP 503")).await;
    assert_eq!(
        (
            retrying.status,
            retrying.attempts,
            retrying.error_message.as_deref(),
            retrying.sent_at
        ),
        (DeliveryStatus::Pending, 1, Some("HTTP 503"), None)
    );
    let failed = finish(DeliveryStatus::Failed, Some("HTTP 500")).await;
    assert_eq!(
        (failed.status, failed.attempts, failed.sent_at),
        (DeliveryStatus::Failed, 2, None)
    );
    let sent = finish(DeliveryStatus::Sent, None).await;
    assert_eq!(
        (sent.status, sent.attempts, sent.error_message),
        (DeliveryStatus::Sent, 3, None)
    );
    assert!(sent.sent_at.expect("sent_at is set") >= sent.created_at);
    assert_eq!(sent.created_at, record.created_at);
}

async fn unknown_ids_are_not_found(s: &Stores) {
    let n = &s.notifications;
    let missing = Uuid::new_v4();
    assert!(matches!(n.record(missing).await, Err(RepoError::NotFound)));
    let finish = n.finish_attempt(missing, DeliveryStatus::Sent, None).await;
    assert!(matches!(finish, Err(RepoError::NotFound)));
    let of_no_review = delivery(
        Channel::Email,
        NotificationType::ReviewCompleted,
        Some(missing),
    );
    assert!(matches!(
        n.add_delivery(of_no_review).await,
        Err(RepoError::NotFound)
    ));
    let event = n
        .add_digest_event(NotificationType::ReviewCompleted, &event(missing, 1))
        .await;
    assert!(matches!(event, Err(RepoError::NotFound)));
}

/// Five deliveries, oldest first, each after one attempt (or none):
/// email/completed/review sent, email/failed/review failed, webhook/completed/review
/// sent, push/rating_low pending, email/daily_summary sent.
async fn five_deliveries(s: &Stores, review: Uuid) -> Vec<NotificationRecord> {
    use reviewd_domain::model::notification::{
        Channel as C, DeliveryStatus as S, NotificationType as T,
    };
    let plan = [
        (C::Email, T::ReviewCompleted, Some(review), S::Sent),
        (C::Email, T::ReviewFailed, Some(review), S::Failed),
        (C::Webhook, T::ReviewCompleted, Some(review), S::Sent),
        (C::Push, T::RatingLow, None, S::Pending),
        (C::Email, T::DailySummary, None, S::Sent),
    ];
    let mut records = Vec::new();
    for (channel, kind, review_id, status) in plan {
        let record = s
            .notifications
            .add_delivery(delivery(channel, kind, review_id))
            .await
            .unwrap();
        if status != S::Pending {
            s.notifications
                .finish_attempt(record.id, status, None)
                .await
                .unwrap();
        }
        records.push(record);
    }
    records
}

async fn history_is_newest_first_filtered_and_paged(s: &Stores, review: Uuid) {
    let records = five_deliveries(s, review).await;
    let r: Vec<Uuid> = records.iter().map(|r| r.id).collect();
    let all = PageRequest::new(1, 100, 100);
    // Only this case's records: those created from its first on.
    let mine = HistoryFilter {
        start: Some(records[0].created_at),
        ..Default::default()
    };
    let list = async |filter: HistoryFilter, page: PageRequest| {
        let page = s.notifications.history(&filter, page).await.unwrap();
        (
            page.total,
            page.items.iter().map(|r| r.id).collect::<Vec<_>>(),
        )
    };

    assert_eq!(
        list(mine.clone(), all).await,
        (5, vec![r[4], r[3], r[2], r[1], r[0]])
    );
    // A page keeps the total of the whole filtered set.
    assert_eq!(
        list(mine.clone(), PageRequest::new(2, 2, 100)).await,
        (5, vec![r[2], r[1]])
    );
    assert_eq!(
        list(mine.clone(), PageRequest::new(3, 2, 100)).await,
        (5, vec![r[0]])
    );
    assert_eq!(
        list(mine.clone(), PageRequest::new(4, 2, 100)).await,
        (5, vec![])
    );

    let by = |f: fn(&mut HistoryFilter)| {
        let mut filter = mine.clone();
        f(&mut filter);
        filter
    };
    let email = by(|f| f.channel = Some(Channel::Email));
    assert_eq!(list(email, all).await, (3, vec![r[4], r[1], r[0]]));
    let sent = by(|f| f.status = Some(DeliveryStatus::Sent));
    assert_eq!(list(sent, all).await, (3, vec![r[4], r[2], r[0]]));
    let completed = by(|f| f.notification_type = Some(NotificationType::ReviewCompleted));
    assert_eq!(list(completed, all).await, (2, vec![r[2], r[0]]));
    let of_review = HistoryFilter {
        review_id: Some(review),
        ..mine.clone()
    };
    assert_eq!(
        list(of_review.clone(), all).await,
        (3, vec![r[2], r[1], r[0]])
    );
    let failed_email_of_review = HistoryFilter {
        channel: Some(Channel::Email),
        status: Some(DeliveryStatus::Failed),
        ..of_review
    };
    assert_eq!(list(failed_email_of_review, all).await, (1, vec![r[1]]));

    let window = HistoryFilter {
        start: Some(records[1].created_at),
        end: Some(records[3].created_at),
        ..Default::default()
    };
    assert_eq!(list(window, all).await, (2, vec![r[2], r[1]]));

    let push = s.notifications.record(r[3]).await.unwrap();
    assert_eq!(
        (
            push.channel,
            push.notification_type,
            push.review_id,
            push.status
        ),
        (
            Channel::Push,
            NotificationType::RatingLow,
            None,
            DeliveryStatus::Pending
        )
    );
}

async fn stats_count_each_channel_and_status(s: &Stores, review: Uuid) {
    let r = five_deliveries(s, review).await;
    let count = |channel, status, count| DeliveryCount {
        channel,
        status,
        count,
    };
    let stats = async |start: Option<DateTime<Utc>>, end: Option<DateTime<Utc>>| {
        let mut counts = s.notifications.stats(start, end).await.unwrap();
        counts.sort_by_key(|c| (c.channel.as_str(), c.status.as_str()));
        counts
    };
    assert_eq!(
        stats(Some(r[0].created_at), None).await,
        [
            count(Channel::Email, DeliveryStatus::Failed, 1),
            count(Channel::Email, DeliveryStatus::Sent, 2),
            count(Channel::Push, DeliveryStatus::Pending, 1),
            count(Channel::Webhook, DeliveryStatus::Sent, 1),
        ]
    );
    assert_eq!(
        stats(Some(r[0].created_at), Some(r[2].created_at)).await,
        [
            count(Channel::Email, DeliveryStatus::Failed, 1),
            count(Channel::Email, DeliveryStatus::Sent, 1),
        ]
    );
    assert!(stats(Some(far_ahead()), None).await.is_empty());
    let everything = stats(None, None).await;
    let total: i64 = everything.iter().map(|c| c.count).sum();
    assert!(total >= 5, "{everything:?}");
}

async fn stale_pending_deliveries_are_taken_once_oldest_first(s: &Stores) {
    let n = &s.notifications;
    let add = async || {
        let new = delivery(Channel::Email, NotificationType::ReviewCompleted, None);
        (n.add_delivery(new.clone()).await.unwrap(), new.payload)
    };
    let (oldest, oldest_payload) = add().await;
    let (retrying, retrying_payload) = add().await;
    n.finish_attempt(retrying.id, DeliveryStatus::Pending, Some("HTTP 503"))
        .await
        .unwrap();
    let (sent, _) = add().await;
    n.finish_attempt(sent.id, DeliveryStatus::Sent, None)
        .await
        .unwrap();
    // Untouched since before this one was made: the first two (the third is sent).
    let (cutoff, _) = add().await;
    let before = cutoff.created_at;

    let mut taken = n.take_stale_pending(before, 1).await.unwrap();
    assert_eq!(taken.len(), 1, "at most the limit");
    taken.extend(n.take_stale_pending(before, 100).await.unwrap());
    assert!(
        taken
            .windows(2)
            .all(|w| w[0].0.created_at <= w[1].0.created_at),
        "oldest first"
    );
    let mine: Vec<_> = taken
        .into_iter()
        .filter(|(r, _)| [oldest.id, retrying.id, sent.id, cutoff.id].contains(&r.id))
        .map(|(r, payload)| (r.id, r.attempts, r.status, payload))
        .collect();
    assert_eq!(
        mine,
        [
            (oldest.id, 0, DeliveryStatus::Pending, oldest_payload),
            (retrying.id, 1, DeliveryStatus::Pending, retrying_payload),
        ]
    );
    // Taking touched them: they are not stale any more.
    assert!(n.take_stale_pending(before, 100).await.unwrap().is_empty());
}

async fn clean_deletes_the_records_created_before_the_cutoff(s: &Stores) {
    let n = &s.notifications;
    let mut records = Vec::new();
    for _ in 0..3 {
        let new = delivery(Channel::Email, NotificationType::ReviewCompleted, None);
        records.push(n.add_delivery(new).await.unwrap());
    }
    // Older cases' records first, so the counts below are this case's alone.
    n.clean(records[0].created_at).await.unwrap();
    assert_eq!(n.clean(records[2].created_at).await.unwrap(), 2);
    assert_eq!(n.clean(records[2].created_at).await.unwrap(), 0);
    for gone in &records[..2] {
        assert!(matches!(n.record(gone.id).await, Err(RepoError::NotFound)));
    }
    let left = n
        .history(&HistoryFilter::default(), PageRequest::new(1, 10, 100))
        .await
        .unwrap();
    assert_eq!(
        (
            left.total,
            left.items.iter().map(|r| r.id).collect::<Vec<_>>()
        ),
        (1, vec![records[2].id])
    );
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
        score: (n % 2 == 1).then(|| u32::try_from(n).unwrap() * 10),
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

/// Now by the store's clock: when a new record of it is made.
async fn store_now(s: &Stores) -> DateTime<Utc> {
    let marker = delivery(Channel::Webhook, NotificationType::DailySummary, None);
    s.notifications
        .add_delivery(marker)
        .await
        .unwrap()
        .created_at
}

type Taken = Vec<(NotificationType, ReviewEvent, DateTime<Utc>)>;

fn without_time_taken(taken: &Taken) -> Vec<(NotificationType, ReviewEvent)> {
    taken.iter().map(|(k, e, _)| (*k, e.clone())).collect()
}

async fn digest_events_are_taken_once_oldest_first(s: &Stores, review: Uuid) {
    let n = &s.notifications;
    n.take_digest_events(far_ahead()).await.unwrap();
    for i in 1..=3 {
        n.add_digest_event(kind_of(i), &event(review, i))
            .await
            .unwrap();
    }
    let until = store_now(s).await;
    n.add_digest_event(kind_of(4), &event(review, 4))
        .await
        .unwrap();

    assert!(n.take_digest_events(long_ago()).await.unwrap().is_empty());
    let taken = n.take_digest_events(until).await.unwrap();
    let expected: Vec<_> = (1..=3).map(|i| (kind_of(i), event(review, i))).collect();
    assert_eq!(without_time_taken(&taken), expected);
    assert!(taken.windows(2).all(|w| w[0].2 < w[1].2), "oldest first");
    assert!(taken.iter().all(|(_, _, at)| *at <= until));

    assert!(
        n.take_digest_events(until).await.unwrap().is_empty(),
        "taken events are not taken again"
    );
    let later = n.take_digest_events(store_now(s).await).await.unwrap();
    assert_eq!(without_time_taken(&later), [(kind_of(4), event(review, 4))]);
}

async fn concurrent_digest_takes_split_the_events(s: &Stores, review: Uuid) {
    let n = &s.notifications;
    for i in 1..=20 {
        n.add_digest_event(kind_of(i), &event(review, i))
            .await
            .unwrap();
    }
    let until = store_now(s).await;
    let (left, right) = tokio::join!(n.take_digest_events(until), n.take_digest_events(until));
    let mrs = |taken: Taken| {
        taken
            .into_iter()
            .map(|(_, e, _)| e.mr_iid)
            .collect::<Vec<_>>()
    };
    let (left, right) = (mrs(left.unwrap()), mrs(right.unwrap()));
    let mut both: Vec<i64> = left.iter().chain(&right).copied().collect();
    both.sort_unstable();
    assert_eq!(
        both,
        (1..=20).collect::<Vec<_>>(),
        "each event taken exactly once"
    );
}

/// Push subscriptions, for two users the store knows (the subscriptions' owners).
pub async fn push_subscriptions(n: &dyn NotificationRepository, [alice, bob]: [Uuid; 2]) {
    let base = format!("https://push.example.com/{}", Uuid::new_v4().simple());
    let endpoint = |i: u8| format!("{base}/{i}");
    let sub = |user_id, i, key: &str| NewPushSubscription {
        user_id,
        endpoint: endpoint(i),
        p256dh: format!("p256dh-{key}"),
        auth: format!("auth-{key}"),
        user_agent: Some(format!("agent-{key}")),
        expires_at: None,
    };
    let ids = |subs: Vec<PushSubscription>| {
        subs.into_iter()
            .filter(|s| s.endpoint.starts_with(&base))
            .map(|s| s.id)
            .collect::<Vec<_>>()
    };

    let first = n.subscribe(sub(alice, 1, "a1")).await.unwrap();
    assert_eq!(
        (
            first.user_id,
            first.endpoint.as_str(),
            first.p256dh.as_str(),
            first.auth.as_str(),
            first.user_agent.as_deref(),
            first.last_used_at,
            first.expires_at
        ),
        (
            Some(alice),
            endpoint(1).as_str(),
            "p256dh-a1",
            "auth-a1",
            Some("agent-a1"),
            None,
            None
        )
    );
    let second = n.subscribe(sub(alice, 2, "a2")).await.unwrap();
    let bobs = n.subscribe(sub(bob, 3, "b1")).await.unwrap();

    // A known endpoint is updated in place: new keys and owner, same subscription.
    let moved = n.subscribe(sub(bob, 1, "b2")).await.unwrap();
    assert_eq!(
        moved,
        PushSubscription {
            user_id: Some(bob),
            p256dh: "p256dh-b2".into(),
            auth: "auth-b2".into(),
            user_agent: Some("agent-b2".into()),
            ..first.clone()
        }
    );

    // Newest first.
    assert_eq!(
        ids(n.subscriptions(None).await.unwrap()),
        [bobs.id, second.id, first.id]
    );
    assert_eq!(
        ids(n.subscriptions(Some(alice)).await.unwrap()),
        [second.id]
    );
    assert_eq!(
        ids(n.subscriptions(Some(bob)).await.unwrap()),
        [bobs.id, first.id]
    );
    assert!(
        n.subscriptions(Some(Uuid::new_v4()))
            .await
            .unwrap()
            .is_empty()
    );

    n.touch(&endpoint(2)).await.unwrap();
    let touched = n.subscriptions(Some(alice)).await.unwrap();
    assert!(touched[0].last_used_at.is_some());
    assert!(matches!(
        n.touch(&endpoint(9)).await,
        Err(RepoError::NotFound)
    ));

    n.unsubscribe(&endpoint(2)).await.unwrap();
    assert!(matches!(
        n.unsubscribe(&endpoint(2)).await,
        Err(RepoError::NotFound)
    ));
    assert!(n.subscriptions(Some(alice)).await.unwrap().is_empty());

    // Older expired subscriptions first, so the counts below are this case's alone.
    n.clean_subscriptions().await.unwrap();
    let expiring = |user_id, i, key, at| NewPushSubscription {
        expires_at: Some(at),
        ..sub(user_id, i, key)
    };
    n.subscribe(expiring(bob, 1, "b2", long_ago()))
        .await
        .unwrap();
    n.subscribe(expiring(bob, 3, "b1", far_ahead()))
        .await
        .unwrap();
    assert_eq!(n.clean_subscriptions().await.unwrap(), 1);
    assert_eq!(n.clean_subscriptions().await.unwrap(), 0);
    assert_eq!(ids(n.subscriptions(None).await.unwrap()), [bobs.id]);
}
