//! Notification dispatch on the in-memory adapters: deliveries recorded, retried
//! with backoff on the fake clock (no wall time spent), and digests.

#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reviewd_domain::PageRequest;
use reviewd_domain::model::grade::Rating;
use reviewd_domain::model::notification::{
    Channel, DeliveryStatus, Frequency, HistoryFilter, NotificationConfig, NotificationType,
};
use reviewd_domain::model::review::ReviewStatus;
use reviewd_domain::ports::{Clock, NotifyError};
use reviewd_domain::services::NotificationService;
use reviewd_testkit::contract::seed;
use reviewd_testkit::fakes::notifier::RecordingNotifier;
use reviewd_testkit::world::World;
use std::sync::Arc;
use std::time::Duration;

struct Bench {
    world: World,
    webhook: Arc<RecordingNotifier>,
    chat: Arc<RecordingNotifier>,
    service: NotificationService,
}

async fn bench(frequency: Frequency) -> Bench {
    let world = World::new();
    let webhook = Arc::new(RecordingNotifier::new(Channel::Webhook));
    let chat = Arc::new(RecordingNotifier::new(Channel::ChatB));
    let service = reviewd_testkit::world::notification_service(
        &world,
        vec![webhook.clone(), chat.clone()],
        world.clock.clone(),
    );
    world
        .stores
        .notifications
        .save_config(&NotificationConfig {
            webhook_enabled: true,
            webhook_urls: vec!["https://hooks.example.com/a".into()],
            chat_b_enabled: true,
            chat_b_webhook_url: Some(reviewd_domain::model::SecretString::new(
                "https://chat.example.com/x",
            )),
            notification_frequency: frequency,
            ..NotificationConfig::default()
        })
        .await
        .unwrap();
    Bench {
        world,
        webhook,
        chat,
        service,
    }
}

async fn finished_review(b: &Bench, score: u32) -> uuid::Uuid {
    let project = seed::project(&b.world.stores).await;
    seed::finished_review(
        &b.world.stores,
        &project,
        seed::completed(Rating::B, score, 2),
    )
    .await
    .id
}

async fn history(b: &Bench) -> Vec<reviewd_domain::model::notification::NotificationRecord> {
    b.world
        .stores
        .notifications
        .history(&HistoryFilter::default(), PageRequest::new(1, 100, 100))
        .await
        .unwrap()
        .items
}

#[tokio::test]
async fn a_finished_review_reaches_every_enabled_channel_and_is_recorded() {
    let b = bench(Frequency::Immediate).await;
    let review = finished_review(&b, 90).await;
    b.service
        .review_finished(review, ReviewStatus::Completed)
        .await;

    assert_eq!(b.webhook.sent().len(), 1);
    assert_eq!(b.chat.sent().len(), 1);
    let (_, sent) = &b.webhook.sent()[0];
    assert_eq!(sent.kind, NotificationType::ReviewCompleted);
    let records = history(&b).await;
    assert_eq!(records.len(), 2);
    assert!(
        records
            .iter()
            .all(|r| r.status == DeliveryStatus::Sent && r.attempts == 1)
    );
}

#[tokio::test]
async fn a_failing_channel_is_retried_with_backoff_on_the_clock_then_given_up() {
    let b = bench(Frequency::Immediate).await;
    b.webhook
        .fail_next(5, NotifyError::Unavailable("503 from the receiver".into()));
    let review = finished_review(&b, 90).await;
    b.service
        .review_finished(review, ReviewStatus::Completed)
        .await;

    assert_eq!(b.webhook.attempts().len(), 3, "bounded by max_attempts");
    assert_eq!(
        b.world.clock.slept(),
        vec![Duration::from_secs(2), Duration::from_secs(4)],
        "waits double between attempts, spent on the fake clock"
    );
    let records = history(&b).await;
    let webhook = records
        .iter()
        .find(|r| r.channel == Channel::Webhook)
        .unwrap();
    assert_eq!(
        (webhook.status, webhook.attempts),
        (DeliveryStatus::Failed, 3)
    );
    assert!(
        webhook
            .error_message
            .as_deref()
            .unwrap_or("")
            .contains("503")
    );
    let chat = records
        .iter()
        .find(|r| r.channel == Channel::ChatB)
        .unwrap();
    assert_eq!(
        chat.status,
        DeliveryStatus::Sent,
        "one channel's failure does not stop another"
    );
}

#[tokio::test]
async fn a_refusal_is_not_retried() {
    let b = bench(Frequency::Immediate).await;
    b.webhook
        .fail_next(1, NotifyError::Rejected("400 bad payload".into()));
    let review = finished_review(&b, 90).await;
    b.service
        .review_finished(review, ReviewStatus::Completed)
        .await;
    assert_eq!(b.webhook.attempts().len(), 1);
    assert!(b.world.clock.slept().is_empty());
}

#[tokio::test]
async fn a_low_score_also_sends_a_rating_low_notification() {
    let b = bench(Frequency::Immediate).await;
    let review = finished_review(&b, 40).await;
    b.service
        .review_finished(review, ReviewStatus::Completed)
        .await;
    let kinds: Vec<_> = b.webhook.sent().iter().map(|(_, n)| n.kind).collect();
    assert!(kinds.contains(&NotificationType::ReviewCompleted));
    assert!(kinds.contains(&NotificationType::RatingLow), "{kinds:?}");
}

#[tokio::test]
async fn a_failing_channel_delays_no_other_channel_and_no_other_kind() {
    let b = bench(Frequency::Immediate).await;
    // The webhook fails twice for the first kind (backing off 2 s, then 4 s).
    b.webhook
        .fail_next(2, NotifyError::Unavailable("503 from the receiver".into()));
    let review = finished_review(&b, 40).await; // completed and rating-low
    b.service
        .review_finished(review, ReviewStatus::Completed)
        .await;

    let webhook = b.webhook.attempts();
    assert_eq!(
        webhook.len(),
        4,
        "two failures and a success, plus the other kind"
    );
    let last_retry = webhook
        .iter()
        .filter(|a| a.notification.kind == webhook[0].notification.kind)
        .map(|a| a.seq)
        .max()
        .unwrap();
    let chat = b.chat.attempts();
    assert_eq!(chat.len(), 2, "{chat:?}");
    assert!(
        chat.iter().all(|a| a.outcome.is_ok() && a.seq < last_retry),
        "both kinds reached chat while the webhook was still retrying"
    );
    let other_kind = webhook
        .iter()
        .find(|a| a.notification.kind != webhook[0].notification.kind)
        .unwrap();
    assert!(
        other_kind.seq < last_retry,
        "the webhook's other kind did not wait for the first one's retries"
    );
}

#[tokio::test]
async fn a_daily_digest_holds_events_and_sends_them_once() {
    let b = bench(Frequency::Daily).await;
    for score in [90, 80, 95] {
        let review = finished_review(&b, score).await;
        b.service
            .review_finished(review, ReviewStatus::Completed)
            .await;
    }
    assert!(b.webhook.sent().is_empty(), "held for the digest");

    b.world.clock.advance(Duration::from_secs(60));
    assert_eq!(b.service.send_digest(Frequency::Daily).await.unwrap(), 3);
    let sent = b.webhook.sent();
    assert_eq!(sent.len(), 1, "one digest per channel recipient");
    assert!(sent[0].1.digest.is_some());
    assert_eq!(
        b.service.send_digest(Frequency::Daily).await.unwrap(),
        0,
        "events are digested once"
    );
    assert_eq!(
        b.service.send_digest(Frequency::Weekly).await.unwrap(),
        0,
        "a digest of another frequency than the settings' sends nothing"
    );
}

/// The clock of a process that stops during its first wait between attempts.
struct StopsAtFirstWait(Arc<reviewd_testkit::fakes::FakeClock>);

#[async_trait::async_trait]
impl Clock for StopsAtFirstWait {
    fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.0.now()
    }

    async fn sleep(&self, _: Duration) {
        std::future::pending::<()>().await;
    }
}

#[tokio::test]
async fn deliveries_left_pending_by_a_stopped_process_are_resumed_from_their_next_attempt() {
    let b = bench(Frequency::Immediate).await;
    let review = finished_review(&b, 90).await;
    b.webhook
        .fail_next(1, NotifyError::Unavailable("timeout".into()));
    let stopping = reviewd_testkit::world::notification_service(
        &b.world,
        vec![b.webhook.clone()],
        Arc::new(StopsAtFirstWait(b.world.clock.clone())),
    );
    tokio::select! {
        biased;
        () = stopping.review_finished(review, ReviewStatus::Completed) => {
            panic!("the process was to stop while waiting")
        }
        () = tokio::task::yield_now() => {}
    }
    let webhook = history(&b)
        .await
        .into_iter()
        .find(|r| r.channel == Channel::Webhook)
        .unwrap();
    assert_eq!(
        (webhook.status, webhook.attempts),
        (DeliveryStatus::Pending, 1)
    );

    assert_eq!(
        b.service
            .resume_interrupted(Duration::from_secs(600))
            .await
            .unwrap(),
        0,
        "a delivery touched within the stale age is not taken"
    );
    b.world.clock.advance(Duration::from_secs(601));
    assert_eq!(
        b.service
            .resume_interrupted(Duration::from_secs(600))
            .await
            .unwrap(),
        1
    );
    let webhook = history(&b)
        .await
        .into_iter()
        .find(|r| r.channel == Channel::Webhook)
        .unwrap();
    assert_eq!(
        (webhook.status, webhook.attempts),
        (DeliveryStatus::Sent, 2)
    );
    assert_eq!(
        b.webhook.sent().len(),
        1,
        "sent once, by the resumed attempt"
    );
}
