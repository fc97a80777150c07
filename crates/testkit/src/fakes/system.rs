//! The host as the domain reads it: a sampler with fixed figures, a disk whose space
//! a test sets, and a dependency probe a test switches up or down.

use async_trait::async_trait;
use reviewd_domain::model::monitoring::SystemSample;
use reviewd_domain::ports::{Clock, DiskSpace, DiskUsage, HealthProbe, ProbeError, SystemSampler};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Returns the same figures at every call, stamped with its clock's now.
pub struct FakeSystemSampler {
    sample: Mutex<SystemSample>,
    clock: Arc<dyn Clock>,
}

impl FakeSystemSampler {
    /// A plausible idle host: 4 CPUs at 12.5 %, 2 of 8 GiB used.
    #[must_use]
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        const GIB: u64 = 1024 * 1024 * 1024;
        let sample = SystemSample {
            instance: "test-host:1".into(),
            cpu_usage_percent: 12.5,
            cpu_count: 4,
            memory_used_bytes: 2 * GIB,
            memory_total_bytes: 8 * GIB,
            process_memory_bytes: Some(64 * 1024 * 1024),
            uptime_seconds: 86_400,
            process_uptime_seconds: 3_600,
            load_average: Some([0.5, 0.4, 0.3]),
            collected_at: clock.now(),
        };
        Self {
            sample: Mutex::new(sample),
            clock,
        }
    }

    /// The figures the next samples report (their `collected_at` is the clock's).
    pub fn set(&self, sample: SystemSample) {
        *self.sample.lock().unwrap() = sample;
    }
}

#[async_trait]
impl SystemSampler for FakeSystemSampler {
    async fn sample(&self) -> SystemSample {
        SystemSample {
            collected_at: self.clock.now(),
            ..self.sample.lock().unwrap().clone()
        }
    }
}

/// The same space for every path, or the same failure.
pub struct FakeDiskUsage {
    space: Mutex<Result<DiskSpace, String>>,
}

impl FakeDiskUsage {
    #[must_use]
    pub fn new(total_bytes: u64, available_bytes: u64) -> Self {
        Self {
            space: Mutex::new(Ok(DiskSpace {
                total_bytes,
                available_bytes,
            })),
        }
    }

    pub fn set_available(&self, available_bytes: u64) {
        let mut space = self.space.lock().unwrap();
        let total_bytes = space.as_ref().map_or(available_bytes, |s| s.total_bytes);
        *space = Ok(DiskSpace {
            total_bytes,
            available_bytes,
        });
    }

    /// Makes every read fail with `message`, as an unmounted path would.
    pub fn fail(&self, message: &str) {
        *self.space.lock().unwrap() = Err(message.to_owned());
    }
}

#[async_trait]
impl DiskUsage for FakeDiskUsage {
    async fn usage(&self, _path: &Path) -> Result<DiskSpace, String> {
        self.space.lock().unwrap().clone()
    }
}

/// A dependency that answers in a fixed time while up, and fails while down.
pub struct FakeHealthProbe {
    name: &'static str,
    up: AtomicBool,
    latency: Duration,
}

impl FakeHealthProbe {
    /// A probe that is up and answers in 1 ms.
    #[must_use]
    pub fn up(name: &'static str) -> Self {
        Self {
            name,
            up: AtomicBool::new(true),
            latency: Duration::from_millis(1),
        }
    }

    pub fn set_up(&self, up: bool) {
        self.up.store(up, Ordering::SeqCst);
    }
}

#[async_trait]
impl HealthProbe for FakeHealthProbe {
    fn name(&self) -> &'static str {
        self.name
    }

    async fn ping(&self) -> Result<Duration, ProbeError> {
        if self.up.load(Ordering::SeqCst) {
            Ok(self.latency)
        } else {
            Err(ProbeError(format!("{} is down", self.name)))
        }
    }
}
