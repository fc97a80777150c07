//! This replica's preparer: passes of `RunnerService::prepare_ahead` so that
//! runners' claims find their review rounds ready instead of preparing them,
//! with two platform calls per task, on the claim's request path.

use reviewd_domain::services::{PrepareReport, RunnerService};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// Rounds one preparer pass begins at once (each holds a pooled connection).
pub const PREPARE_CONCURRENCY: usize = 4;
/// The pause when a pass found nothing to do.
const PREPARE_IDLE: Duration = Duration::from_millis(250);
/// The pause when no runner was online: the preparer is on by default, and a
/// deployment without runners should not pay for a few queries every 250 ms.
/// A runner registering or claiming ends it early (see [`PreparerWake`]).
const PREPARE_NO_RUNNER: Duration = Duration::from_secs(5);
/// The pause after a failed pass (a store outage should not be hammered).
const PREPARE_FAILED: Duration = Duration::from_secs(1);

/// Tells the preparer a runner is online, so that a preparer waiting out
/// `PREPARE_NO_RUNNER` looks again at once. Without it, the first seconds of
/// every runner's work were claims preparing inline (the claims bench measured
/// 275 claims/s with a p99 of 274 ms at 50 runners where prepared rounds give
/// over a thousand). Cheap to call on every claim: one atomic permit.
#[derive(Clone, Default)]
pub struct PreparerWake(Arc<Notify>);

impl PreparerWake {
    pub fn runner_online(&self) {
        self.0.notify_one();
    }

    async fn woken(&self) {
        self.0.notified().await;
    }
}

/// Spawns the loop on the current runtime. It dies with the process; a hold it
/// had on an MR ends with its connection.
pub fn spawn(runners: Arc<RunnerService>, wake: PreparerWake) {
    tokio::spawn(run(
        move || {
            let runners = runners.clone();
            async move { runners.prepare_ahead().await }
        },
        wake,
    ));
}

/// Passes back to back while they find work, else every `PREPARE_IDLE`, else
/// (no runner online) every `PREPARE_NO_RUNNER` or at the next wake.
async fn run<F, Fut, E>(mut pass: F, wake: PreparerWake)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<PrepareReport, E>>,
    E: std::fmt::Display,
{
    loop {
        match pass().await {
            Ok(report) if report.busy() => tokio::task::yield_now().await,
            Ok(report) if !report.runners_online => {
                tokio::select! {
                    () = tokio::time::sleep(PREPARE_NO_RUNNER) => {}
                    () = wake.woken() => {}
                }
            }
            Ok(_) => tokio::time::sleep(PREPARE_IDLE).await,
            Err(e) => {
                tracing::warn!(error = %e, "runners.prepare_failed");
                tokio::time::sleep(PREPARE_FAILED).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;
    use tokio::time::Instant;

    /// Runs the loop over passes that report no runner online and records when
    /// each pass began, relative to the start.
    fn offline_loop(wake: PreparerWake) -> Arc<Mutex<Vec<Duration>>> {
        let passes = Arc::new(Mutex::new(Vec::new()));
        let seen = passes.clone();
        let start = Instant::now();
        tokio::spawn(run(
            move || {
                seen.lock().unwrap().push(start.elapsed());
                async { Ok::<_, String>(PrepareReport::default()) }
            },
            wake,
        ));
        passes
    }

    #[tokio::test(start_paused = true)]
    async fn without_a_runner_it_looks_again_only_after_the_long_pause() {
        let passes = offline_loop(PreparerWake::default());
        tokio::time::sleep(PREPARE_NO_RUNNER - Duration::from_millis(1)).await;
        assert_eq!(passes.lock().unwrap().len(), 1);
        tokio::time::sleep(Duration::from_millis(2)).await;
        assert_eq!(*passes.lock().unwrap(), [Duration::ZERO, PREPARE_NO_RUNNER]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_runner_coming_online_ends_the_long_pause_at_once() {
        let wake = PreparerWake::default();
        let passes = offline_loop(wake.clone());
        tokio::time::sleep(Duration::from_millis(100)).await;
        wake.runner_online();
        tokio::time::sleep(Duration::from_millis(1)).await;
        assert_eq!(
            *passes.lock().unwrap(),
            [Duration::ZERO, Duration::from_millis(100)]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_failed_pass_is_retried_after_a_pause_not_at_once() {
        let count = Arc::new(Mutex::new(0_u32));
        let seen = count.clone();
        tokio::spawn(run(
            move || {
                *seen.lock().unwrap() += 1;
                async { Err::<PrepareReport, _>("store down") }
            },
            PreparerWake::default(),
        ));
        tokio::time::sleep(PREPARE_FAILED * 3 + Duration::from_millis(1)).await;
        assert_eq!(*count.lock().unwrap(), 4);
    }
}
