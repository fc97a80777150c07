//! The host's CPU, memory, load and uptime, read with `sysinfo`.

use async_trait::async_trait;
use chrono::Utc;
use reviewd_domain::model::monitoring::SystemSample;
use reviewd_domain::ports::SystemSampler;
use std::sync::Mutex;
use std::time::Instant;
use sysinfo::{ProcessRefreshKind, ProcessesToUpdate, System};

/// Keeps one `System` so CPU usage is measured between two samples (the first sample
/// after start measures from start-up).
pub struct HostSampler {
    system: Mutex<System>,
    instance: String,
    started: Instant,
}

impl HostSampler {
    #[must_use]
    pub fn new(instance: String, started: Instant) -> Self {
        let mut system = System::new();
        system.refresh_cpu_usage();
        Self {
            system: Mutex::new(system),
            instance,
            started,
        }
    }

    fn read(&self) -> SystemSample {
        let Ok(mut sys) = self.system.lock() else {
            return self.empty();
        };
        sys.refresh_cpu_usage();
        sys.refresh_memory();
        let process_memory = sysinfo::get_current_pid().ok().and_then(|pid| {
            sys.refresh_processes_specifics(
                ProcessesToUpdate::Some(&[pid]),
                true,
                ProcessRefreshKind::nothing().with_memory(),
            );
            sys.process(pid).map(sysinfo::Process::memory)
        });
        let load = System::load_average();
        SystemSample {
            instance: self.instance.clone(),
            cpu_usage_percent: f64::from((sys.global_cpu_usage() * 100.0).round() / 100.0),
            cpu_count: u32::try_from(sys.cpus().len()).unwrap_or(0),
            memory_used_bytes: sys.used_memory(),
            memory_total_bytes: sys.total_memory(),
            process_memory_bytes: process_memory,
            uptime_seconds: System::uptime(),
            process_uptime_seconds: self.started.elapsed().as_secs(),
            load_average: Some([load.one, load.five, load.fifteen]),
            collected_at: Utc::now(),
        }
    }

    fn empty(&self) -> SystemSample {
        SystemSample {
            instance: self.instance.clone(),
            cpu_usage_percent: 0.0,
            cpu_count: 0,
            memory_used_bytes: 0,
            memory_total_bytes: 0,
            process_memory_bytes: None,
            uptime_seconds: 0,
            process_uptime_seconds: self.started.elapsed().as_secs(),
            load_average: None,
            collected_at: Utc::now(),
        }
    }
}

#[async_trait]
impl SystemSampler for HostSampler {
    async fn sample(&self) -> SystemSample {
        // A few small /proc reads: quick enough to do inline.
        self.read()
    }
}
