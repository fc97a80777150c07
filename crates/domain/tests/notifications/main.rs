//! Notification dispatch on the in-memory adapters: deliveries recorded, retried
//! with backoff on the fake clock (no wall time spent), and digests.

#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

mod dispatch;
mod isolation_and_digest;
mod resume;

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
    let chat = Arc::new(RecordingNotifier::new(Channel::Discord));
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
            discord_enabled: true,
            discord_webhook_url: Some(reviewd_domain::model::SecretString::new(
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

async fn finished_review(b: &Bench, score: u32) -> reviewd_domain::model::ReviewId {
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
