//! The host as the monitoring and health services read it: a sampler's figures are
//! consistent with one another, and disk usage is measured or refused with a reason.

use async_trait::async_trait;
use reviewd_domain::ports::{DiskUsage, SystemSampler};
use std::path::PathBuf;

pub async fn sampler(sampler: &dyn SystemSampler) {
    let first = sampler.sample().await;
    let second = sampler.sample().await;
    for sample in [&first, &second] {
        assert!(!sample.instance.is_empty(), "{sample:?}");
        assert!(sample.cpu_count >= 1, "{sample:?}");
        assert!(
            (0.0..=100.0).contains(&sample.cpu_usage_percent),
            "{sample:?}"
        );
        assert!(sample.memory_total_bytes > 0, "{sample:?}");
        assert!(
            sample.memory_used_bytes <= sample.memory_total_bytes,
            "{sample:?}"
        );
        if let Some(process) = sample.process_memory_bytes {
            assert!(
                process > 0 && process <= sample.memory_total_bytes,
                "{sample:?}"
            );
        }
        assert!(
            sample.process_uptime_seconds <= sample.uptime_seconds,
            "the process started after the host: {sample:?}"
        );
        if let Some(load) = sample.load_average {
            assert!(load.iter().all(|l| *l >= 0.0), "{sample:?}");
        }
    }
    assert_eq!(first.instance, second.instance, "one instance name");
    assert!(
        second.collected_at >= first.collected_at,
        "stamped in order"
    );
}

/// A disk reader and the paths that exercise it.
#[async_trait]
pub trait DiskWorld: Sync {
    fn disk(&self) -> &dyn DiskUsage;

    /// A directory that exists.
    fn readable(&self) -> PathBuf;

    /// A path whose filesystem cannot be read from now on (for a fake, after it is
    /// told to fail).
    async fn unreadable(&self) -> PathBuf;
}

pub async fn disk_usage(world: &impl DiskWorld) {
    let space = world.disk().usage(&world.readable()).await.unwrap();
    assert!(space.total_bytes > 0, "{space:?}");
    assert!(space.available_bytes <= space.total_bytes, "{space:?}");

    let path = world.unreadable().await;
    let refused = world.disk().usage(&path).await.unwrap_err();
    assert!(!refused.trim().is_empty(), "a reason an operator can read");
}
