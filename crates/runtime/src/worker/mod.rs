//! The server's review workers: they take tasks from the queue, at most
//! [`REVIEWS_PER_AI_CALL`] × `AI_REVIEW_CONCURRENCY` at once, run them through the
//! engine, and acknowledge a message only once its outcome is recorded.
//!
//! A running task is kept alive by a heartbeat (`heartbeat.rs`), so a live worker is
//! never robbed however long the review, and a dead worker's tasks are taken over one
//! lease after its last beat. The consumer name is stable across restarts: a restarted
//! server first resumes its own unfinished messages. When the queue itself is lost
//! (Redis restarted empty, flushed, failed over), it is made again and every unfinished
//! task is queued anew from its record (`crew.rs`). Every wait is the `Clock` port's,
//! so the loop's tests run on a test clock (`tests/worker.rs`).

mod crew;
mod heartbeat;

use crew::Crew;
use futures_util::future::{Either, select};
use reviewd_domain::ports::{Clock, QueueError, TaskQueue};
use reviewd_domain::services::{ReviewEngine, RunnerService, TaskService};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::Semaphore;

/// Reviews a process runs per AI call it may have in flight. A review spends part
/// of its time away from the model (reading the MR and its code, posting,
/// recording) and ends with one call, the summary note's, after its files'; with
/// one review per call the calls sit idle meanwhile (the flood reached 83 % of
/// the provider's bound). The calls themselves stay bounded by their semaphore.
pub const REVIEWS_PER_AI_CALL: usize = 2;

#[derive(Debug, Clone)]
pub struct WorkerSettings {
    pub concurrency: usize,
    pub review_timeout: Duration,
    /// The lease of a running task (`QUEUE_RECLAIM_IDLE_SECS`): renewed every quarter
    /// of it, taken over by another worker once it lapses.
    pub reclaim_idle: Duration,
    /// This process's stable consumer name in the queue's group.
    pub consumer: String,
    /// Wait before a task that failed transiently is queued again
    /// (`QUEUE_RETRY_DELAY_SECS`), so a short outage does not use up its attempts.
    pub retry_delay: Duration,
    /// Age after which a task recorded but never queued is queued again
    /// (`QUEUE_ORPHAN_AGE_SECS`); the sweep runs every half of it.
    pub orphan_age: Duration,
    /// Wait before a task left to a runner is looked at again (`RUNNER_CLAIM_GRACE_MS`).
    pub runner_grace: Duration,
}

/// What the workers run tasks with.
pub struct Services {
    pub engine: Arc<ReviewEngine>,
    pub tasks: Arc<TaskService>,
    pub runners: Arc<RunnerService>,
    pub queue: Arc<dyn TaskQueue>,
    pub clock: Arc<dyn Clock>,
}

/// Wait after a failed look at the queue (or a failed attempt to make it again).
const QUEUE_RETRY: Duration = Duration::from_secs(1);

/// Queues tasks whose process died between recording and queueing them.
fn spawn_orphan_sweep(tasks: Arc<TaskService>, clock: Arc<dyn Clock>, age: Duration) {
    tokio::spawn(async move {
        let period = (age / 2).max(Duration::from_secs(1));
        loop {
            if let Err(e) = tasks.requeue_orphans(age.as_secs()).await {
                tracing::warn!(error = %e, "workers.orphan_sweep_failed");
            }
            clock.sleep(period).await;
        }
    });
}

/// The running workers, for a graceful stop.
pub struct Workers {
    stopping: Arc<AtomicBool>,
    permits: Arc<Semaphore>,
    concurrency: u32,
    clock: Arc<dyn Clock>,
}

impl Workers {
    /// Stops taking tasks and waits up to `timeout` for the running ones to finish.
    /// Returns whether all finished; a task still running is left pending in the
    /// queue, and this process resumes it at its next start (or another worker takes
    /// it over one lease later).
    pub async fn drain(&self, timeout: Duration) -> bool {
        self.stopping.store(true, Ordering::SeqCst);
        let all = self.permits.acquire_many(self.concurrency);
        let drained = match select(Box::pin(all), self.clock.sleep(timeout)).await {
            Either::Left((acquired, _)) => acquired.is_ok(),
            Either::Right(_) => false,
        };
        tracing::info!(drained, "workers.stopped");
        drained
    }
}

pub fn spawn(services: Services, settings: WorkerSettings) -> Workers {
    spawn_orphan_sweep(
        services.tasks.clone(),
        services.clock.clone(),
        settings.orphan_age,
    );
    let concurrency = settings.concurrency.max(1);
    let permits = Arc::new(Semaphore::new(concurrency));
    let stopping = Arc::new(AtomicBool::new(false));
    let handle = Workers {
        stopping: stopping.clone(),
        permits: permits.clone(),
        concurrency: u32::try_from(concurrency).unwrap_or(u32::MAX),
        clock: services.clock.clone(),
    };
    let crew = Crew::new(services, settings);
    tokio::spawn(async move {
        // The queue was made at start (and its lost tasks queued again) by startup.
        tracing::info!(consumer = %crew.settings.consumer, concurrency, "workers.started");
        let mut resume = true;
        loop {
            if stopping.load(Ordering::SeqCst) {
                return;
            }
            let free = permits.available_permits();
            if free == 0 {
                if let Ok(p) = permits.clone().acquire_owned().await {
                    drop(p);
                }
                continue;
            }
            let batch = match crew.next_batch(free, resume).await {
                Ok(batch) => batch,
                Err(QueueError::Lost(e)) => {
                    tracing::error!(error = %e, "workers.queue_lost");
                    crew.recover_if_lost().await;
                    continue;
                }
                Err(e) => {
                    tracing::error!(error = %e, "workers.queue_unavailable");
                    crew.clock.sleep(QUEUE_RETRY).await;
                    continue;
                }
            };
            // This consumer's own pending messages are read until none is left.
            resume = resume && !batch.is_empty();
            for delivery in batch {
                // Pulled as the stop began: left pending, resumed at the next start.
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                if !crew.claim_in_process(delivery.task_id) {
                    continue;
                }
                let Ok(permit) = permits.clone().acquire_owned().await else {
                    return;
                };
                let crew = crew.clone();
                tokio::spawn(async move {
                    crew.handle(delivery, permit).await;
                });
            }
        }
    });
    handle
}
