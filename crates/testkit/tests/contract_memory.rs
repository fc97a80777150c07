//! The port contract suites against the in-memory adapters. The same suites run
//! against the real adapters in their crates (`crates/store-postgres/tests/contract.rs`
//! and the others named in `docs/architecture.md`).

use reviewd_testkit::MemoryStore;
use reviewd_testkit::contract::Stores;
use reviewd_testkit::fakes::FakeClock;
use std::sync::Arc;
use std::time::Duration;

/// A store on a clock that moves a millisecond per reading, as time passes between
/// a real database's statements.
async fn memory() -> (Stores, ()) {
    let clock = Arc::new(FakeClock::ticking(Duration::from_millis(1)));
    (Stores::memory(&MemoryStore::new(clock)), ())
}

reviewd_testkit::repository_contract_tests!(memory);

#[tokio::test]
async fn task_queue() {
    let clock = Arc::new(FakeClock::ticking(Duration::from_millis(1)));
    let queue = reviewd_testkit::fakes::queue::MemoryQueue::new(clock);
    reviewd_testkit::contract::queue::run(&queue, &queue).await;
}

#[tokio::test]
async fn ai_provider() {
    reviewd_testkit::contract::ai::run(&reviewd_testkit::fakes::ai::ScriptedAi::default()).await;
}

#[tokio::test]
async fn hosting_platform() {
    use reviewd_domain::model::PlatformType;
    use reviewd_testkit::fakes::hosting::ScriptedPlatform;
    for platform_type in PlatformType::ALL {
        reviewd_testkit::contract::hosting::run(&ScriptedPlatform::new(platform_type)).await;
    }
}

#[tokio::test]
async fn notification_push_subscriptions() {
    // No users table in memory: any owner id will do.
    let store = MemoryStore::new(Arc::new(FakeClock::ticking(Duration::from_millis(1))));
    let owners = [uuid::Uuid::new_v4(), uuid::Uuid::new_v4()];
    reviewd_testkit::contract::notifications::push_subscriptions(&store, owners).await;
}

#[tokio::test]
async fn notifier() {
    use reviewd_domain::model::notification::Channel;
    use reviewd_testkit::contract::notifier::RecordingWorld;
    for channel in Channel::ALL {
        reviewd_testkit::contract::notifier::run(&RecordingWorld::new(*channel)).await;
    }
}

#[tokio::test]
async fn queue_data_wipe() {
    let queue = reviewd_testkit::fakes::queue::MemoryQueue::new(Arc::new(FakeClock::default()));
    reviewd_testkit::contract::data_wipe::queue(&queue, &queue, &queue).await;
}

#[tokio::test]
async fn login_throttle() {
    use reviewd_testkit::fakes::InMemoryThrottle;
    let clock = Arc::new(FakeClock::ticking(Duration::from_millis(1)));
    reviewd_testkit::contract::login_throttle::run(&|max_failures, window| {
        Box::new(InMemoryThrottle::with_window(
            max_failures,
            window,
            clock.clone(),
        ))
    })
    .await;
}

#[tokio::test]
async fn health_probe() {
    use reviewd_testkit::fakes::system::FakeHealthProbe;
    let (up, down) = (
        FakeHealthProbe::up("database"),
        FakeHealthProbe::up("database"),
    );
    down.set_up(false);
    reviewd_testkit::contract::health_probe::run(&up, &down).await;
}
