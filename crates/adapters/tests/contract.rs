//! The host contracts (`reviewd_testkit::contract::{system, clock}`) against the
//! sampler, the disk reader and the clock the server runs with, on this machine.

use reviewd_adapters::clock::SystemClock;
use reviewd_adapters::disk::DfDiskUsage;
use reviewd_adapters::sampler::HostSampler;
use reviewd_domain::ports::DiskUsage;
use reviewd_testkit::contract::system::{self, DiskWorld};
use std::path::PathBuf;
use std::time::Instant;

#[tokio::test]
async fn system_clock() {
    reviewd_testkit::contract::clock::run(&SystemClock).await;
}

#[tokio::test]
async fn host_sampler() {
    system::sampler(&HostSampler::new("contract:1".into(), Instant::now())).await;
}

struct Df;

#[async_trait::async_trait]
impl DiskWorld for Df {
    fn disk(&self) -> &dyn DiskUsage {
        &DfDiskUsage
    }

    fn readable(&self) -> PathBuf {
        std::env::temp_dir()
    }

    async fn unreadable(&self) -> PathBuf {
        "/nonexistent/reviewd-contract".into()
    }
}

#[tokio::test]
async fn df_disk_usage() {
    system::disk_usage(&Df).await;
}
