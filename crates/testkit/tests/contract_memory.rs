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
async fn costs_by_day() {
    let clock = Arc::new(FakeClock::ticking(Duration::from_millis(1)));
    let stores = Stores::memory(&MemoryStore::new(clock.clone()));
    reviewd_testkit::contract::costs::by_day(&stores, clock.as_ref()).await;
}

#[tokio::test]
async fn task_queue() {
    use reviewd_testkit::contract::queue::MemoryQueueWorld;
    let clock = Arc::new(FakeClock::ticking(Duration::from_millis(1)));
    reviewd_testkit::contract::queue::run(&MemoryQueueWorld::new(clock)).await;
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
    reviewd_testkit::contract::login_throttle::run(&|window| {
        Box::new(InMemoryThrottle::with_window(window, clock.clone()))
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

#[tokio::test]
async fn credentials() {
    use reviewd_testkit::fakes::{FakePasswordHasher, FakeTokenHasher};
    reviewd_testkit::contract::credentials::password_hasher(&FakePasswordHasher::default()).await;
    reviewd_testkit::contract::credentials::token_hasher(&FakeTokenHasher::default());
}

#[test]
fn vapid_keys() {
    reviewd_testkit::contract::vapid::run(
        &reviewd_testkit::fakes::notifier::FakeVapidKeys::default(),
    );
}

#[tokio::test]
async fn system_sampler() {
    use reviewd_testkit::fakes::system::FakeSystemSampler;
    let clock = Arc::new(FakeClock::ticking(Duration::from_millis(1)));
    reviewd_testkit::contract::system::sampler(&FakeSystemSampler::new(clock)).await;
}

struct FakeDisk(reviewd_testkit::fakes::system::FakeDiskUsage);

#[async_trait::async_trait]
impl reviewd_testkit::contract::system::DiskWorld for FakeDisk {
    fn disk(&self) -> &dyn reviewd_domain::ports::DiskUsage {
        &self.0
    }

    fn readable(&self) -> std::path::PathBuf {
        "/var/lib/reviewd".into()
    }

    async fn unreadable(&self) -> std::path::PathBuf {
        self.0.fail("df: /mnt/gone: No such file or directory");
        "/mnt/gone".into()
    }
}

#[tokio::test]
async fn disk_usage() {
    use reviewd_testkit::fakes::system::FakeDiskUsage;
    reviewd_testkit::contract::system::disk_usage(&FakeDisk(FakeDiskUsage::new(100, 40))).await;
}

#[derive(Default)]
struct FakeOAuthWorld {
    oauth: reviewd_testkit::fakes::hosting::FakeOAuth,
    approved: std::sync::atomic::AtomicU64,
}

#[async_trait::async_trait]
impl reviewd_testkit::contract::oauth::OAuthWorld for FakeOAuthWorld {
    fn oauth(&self) -> &dyn reviewd_domain::ports::PlatformOAuth {
        &self.oauth
    }

    fn base_url(&self) -> String {
        "https://gitlab.example.com".into()
    }

    async fn approve(&self, _redirect_uri: &str) -> String {
        let n = self
            .approved
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        format!("code-{n}")
    }

    async fn go_down(&self) {
        self.oauth.set_down(true);
    }
}

#[tokio::test]
async fn platform_oauth() {
    reviewd_testkit::contract::oauth::run(&FakeOAuthWorld::default()).await;
}

#[tokio::test]
async fn clock() {
    reviewd_testkit::contract::clock::run(&FakeClock::default()).await;
    reviewd_testkit::contract::clock::run(&FakeClock::ticking(Duration::from_millis(1))).await;
}
