//! A burst of webhooks for many more MRs than the other scenarios use, while reviews
//! run: every one accepted (no 5xx), every accepted MR reviewed, and the server's
//! memory bounded.

use super::refused;
use crate::process::rss_kib;
use crate::run::{Run, Setup};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::task::JoinHandle;

/// Webhooks in flight at once.
pub(super) const AT_ONCE: usize = 32;

/// The server's resident set must stay under this (MiB). Measured on the debug
/// build: 95 MiB idle, 97 MiB at the flood's peak, the same for 200 and for 1000 MRs
/// (its queue is in Redis, its tasks in PostgreSQL); about 50 % headroom, so a
/// per-MR buffer or cache held in memory (1000 MRs × 50 KiB) breaks it.
const RSS_BOUND_MIB: u64 = 150;

/// How many MRs the flood covers (`CHAOS_FLOOD_MRS`, 200); at least one more than
/// the reviews already running.
pub(super) fn flood_mrs(mrs: i64) -> i64 {
    i64::try_from(crate::env_number("CHAOS_FLOOD_MRS", 200))
        .unwrap_or(200)
        .max(mrs + 1)
}

/// Samples the resident set of `pid` every 500 ms until `stop`; the samples in KiB.
fn sample_rss(pid: u32, stop: Arc<AtomicBool>) -> JoinHandle<Vec<u64>> {
    tokio::spawn(async move {
        let mut samples = Vec::new();
        while !stop.load(Ordering::Relaxed) {
            samples.extend(rss_kib(pid));
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        samples
    })
}

/// `CHAOS_MRS` reviews running, then webhooks for MRs up to `CHAOS_FLOOD_MRS`,
/// `AT_ONCE` at a time (fake AI latency 50 ms, so the flood is reviewed within a
/// minute or so): no 5xx at all, every webhook accepted and its MR reviewed once,
/// the server's RSS under [`RSS_BOUND_MIB`].
pub async fn webhook_flood(mrs: i64) {
    let flood = flood_mrs(mrs);
    let setup = Setup {
        ai_latency: Duration::from_millis(50),
        ..Setup::default()
    };
    let mut run = Run::start("webhook flood", flood, setup).await;
    let pid = run.replicas[0].pid().expect("the server runs");
    let idle = rss_kib(pid).unwrap_or_default();
    let mut extra = refused(&run.send_webhooks(1..=mrs).await);
    run.wait_mid_review().await;
    let before = rss_kib(pid).unwrap_or_default();
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = sample_rss(pid, Arc::clone(&stop));
    let statuses = run
        .send_webhooks_concurrently((mrs + 1..=flood).collect(), AT_ONCE)
        .await;
    extra.extend(refused(&statuses));
    run.fault_ended();
    let row = run.settle().await;
    stop.store(true, Ordering::Relaxed);
    let samples = sampler.await.unwrap_or_default();
    let peak = samples.iter().copied().max().unwrap_or_default();
    println!(
        "{}: {} webhooks, {AT_ONCE} at a time; server RSS {} MiB idle, {} MiB as the flood starts, peak {} MiB over {} samples (bound {RSS_BOUND_MIB} MiB)",
        run.name,
        flood - mrs,
        idle / 1024,
        before / 1024,
        peak / 1024,
        samples.len()
    );
    if samples.is_empty() {
        extra.push("no RSS sample of the server".to_owned());
    }
    if peak / 1024 >= RSS_BOUND_MIB {
        extra.push(format!(
            "the server's RSS peaked at {} MiB (bound {RSS_BOUND_MIB} MiB)",
            peak / 1024
        ));
    }
    run.conclude(&row, &extra);
}
