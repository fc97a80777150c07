//! The server's review workers: they take tasks from the queue, at most
//! `AI_REVIEW_CONCURRENCY` at once, run them through the engine, and acknowledge a
//! message only once its outcome is recorded. A worker that dies leaves its message
//! pending; any worker reclaims it after `QUEUE_RECLAIM_IDLE_SECS`.

use reviewd_domain::ports::{Delivery, TaskQueue};
use reviewd_domain::services::{ReviewEngine, RunOutcome, RunnerService, TaskService};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Semaphore;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct WorkerSettings {
    pub concurrency: usize,
    pub review_timeout: Duration,
    pub reclaim_idle: Duration,
    /// This process's consumer name in the queue's group.
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

/// Queues tasks whose process died between recording and queueing them.
fn spawn_orphan_sweep(tasks: Arc<TaskService>, age: Duration) {
    tokio::spawn(async move {
        let mut interval = tokio::time::interval((age / 2).max(Duration::from_secs(1)));
        loop {
            interval.tick().await;
            if let Err(e) = tasks.requeue_orphans(age.as_secs()).await {
                tracing::warn!(error = %e, "workers.orphan_sweep_failed");
            }
        }
    });
}

/// How long one pull waits for work. Kept below the Redis client's response timeout
/// (a blocked `XREADGROUP` longer than it would be reported as a failure).
const PULL_BLOCK: Duration = Duration::from_millis(250);

/// The running workers, for a graceful stop.
pub struct Workers {
    stopping: Arc<AtomicBool>,
    permits: Arc<Semaphore>,
    concurrency: u32,
}

impl Workers {
    /// Stops taking tasks and waits up to `timeout` for the running ones to finish.
    /// Returns whether all finished; a task still running is left pending in the
    /// queue, and another worker reclaims it.
    pub async fn drain(&self, timeout: Duration) -> bool {
        self.stopping.store(true, Ordering::SeqCst);
        let all = self.permits.acquire_many(self.concurrency);
        let drained = matches!(tokio::time::timeout(timeout, all).await, Ok(Ok(_)));
        tracing::info!(drained, "workers.stopped");
        drained
    }
}

pub fn spawn(
    engine: Arc<ReviewEngine>,
    tasks: Arc<TaskService>,
    runners: Arc<RunnerService>,
    queue: Arc<dyn TaskQueue>,
    settings: WorkerSettings,
) -> Workers {
    spawn_orphan_sweep(tasks, settings.orphan_age);
    let concurrency = settings.concurrency.max(1);
    let permits = Arc::new(Semaphore::new(concurrency));
    let stopping = Arc::new(AtomicBool::new(false));
    let handle = Workers {
        stopping: stopping.clone(),
        permits: permits.clone(),
        concurrency: u32::try_from(concurrency).unwrap_or(u32::MAX),
    };
    tokio::spawn(async move {
        tracing::info!(consumer = %settings.consumer, concurrency, "workers.started");
        // Tasks this process is running: a reclaim of one of them (a review longer
        // than the reclaim idle time) must not start it a second time.
        let in_flight: Arc<Mutex<HashSet<Uuid>>> = Arc::default();
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
            let batch = match next_batch(queue.as_ref(), &settings, free).await {
                Ok(batch) => batch,
                Err(e) => {
                    tracing::error!(error = %e, "workers.queue_unavailable");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            };
            for delivery in batch {
                // Pulled as the stop began: left pending, reclaimed by another worker.
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                let fresh = in_flight
                    .lock()
                    .is_ok_and(|mut set| set.insert(delivery.task_id));
                if !fresh {
                    continue;
                }
                let Ok(permit) = permits.clone().acquire_owned().await else {
                    return;
                };
                let (engine, runners, queue, settings, in_flight) = (
                    engine.clone(),
                    runners.clone(),
                    queue.clone(),
                    settings.clone(),
                    in_flight.clone(),
                );
                tokio::spawn(async move {
                    let task_id = delivery.task_id;
                    let retry = if runners.leave_to_runner(task_id).await {
                        // A capable runner is online with room: it claims the task from
                        // Postgres; this message comes back after the delay, and then
                        // finds the task taken (skipped) or runs it.
                        metrics::counter!("reviewd_review_tasks_total", "outcome" => "left_for_runner").increment(1);
                        tracing::debug!(task.id = %task_id, "workers.left_for_runner");
                        Some(settings.runner_grace)
                    } else {
                        process(&engine, queue.as_ref(), &settings, &delivery)
                            .await
                            .then_some(settings.retry_delay)
                    };
                    if let Ok(mut set) = in_flight.lock() {
                        set.remove(&task_id);
                    }
                    drop(permit);
                    if let Some(delay) = retry {
                        // The permit is free while waiting; the old message stays pending
                        // until the new one exists, so a crash here loses nothing.
                        tokio::time::sleep(delay).await;
                        // A new message first, then drop the old one: the task is never
                        // without one. It is out of `in_flight`, so the new one runs.
                        match queue.push(task_id).await {
                            Ok(_) => ack(queue.as_ref(), &delivery).await,
                            Err(e) => {
                                tracing::error!(task.id = %task_id, error = %e, "workers.requeue_failed")
                            }
                        }
                    }
                });
            }
        }
    });
    handle
}

/// Messages abandoned by silent workers first, then new ones. A failed pull keeps
/// what was reclaimed: those messages are now this consumer's to run.
async fn next_batch(
    queue: &dyn TaskQueue,
    settings: &WorkerSettings,
    free: usize,
) -> Result<Vec<Delivery>, reviewd_domain::ports::QueueError> {
    let mut batch = queue
        .reclaim(&settings.consumer, settings.reclaim_idle, free)
        .await?;
    if !batch.is_empty() {
        tracing::warn!(count = batch.len(), "workers.reclaimed");
    }
    if batch.len() < free {
        match queue
            .pull(&settings.consumer, free - batch.len(), PULL_BLOCK)
            .await
        {
            Ok(pulled) => batch.extend(pulled),
            Err(e) if !batch.is_empty() => tracing::warn!(error = %e, "workers.pull_failed"),
            Err(e) => return Err(e),
        }
    }
    Ok(batch)
}

/// Runs one delivery; returns whether the task asks for another attempt.
async fn process(
    engine: &ReviewEngine,
    queue: &dyn TaskQueue,
    settings: &WorkerSettings,
    delivery: &Delivery,
) -> bool {
    let task_id = delivery.task_id;
    let outcome = tokio::time::timeout(settings.review_timeout, engine.run(task_id)).await;
    let label = match &outcome {
        Ok(Ok(RunOutcome::Completed { .. })) => "completed",
        Ok(Ok(RunOutcome::Failed { .. })) => "failed",
        Ok(Ok(RunOutcome::Retry { .. })) => "retried",
        Ok(Ok(RunOutcome::Busy)) => "deferred",
        Ok(Ok(RunOutcome::Skipped)) => "skipped",
        Ok(Err(_)) => "not_recorded",
        Err(_) => "timed_out",
    };
    metrics::counter!("reviewd_review_tasks_total", "outcome" => label).increment(1);
    match outcome {
        Ok(Ok(RunOutcome::Retry { .. } | RunOutcome::Busy)) => return true,
        Ok(Ok(_)) => ack(queue, delivery).await,
        Ok(Err(e)) => {
            // The outcome could not be recorded: leave the message for a later reclaim.
            tracing::error!(task.id = %task_id, error = %e, "workers.outcome_not_recorded");
        }
        Err(_) => {
            tracing::error!(task.id = %task_id, timeout_s = settings.review_timeout.as_secs(), "workers.review_timed_out");
            match engine.time_out(task_id, settings.review_timeout).await {
                Ok(()) => ack(queue, delivery).await,
                Err(e) => {
                    tracing::error!(task.id = %task_id, error = %e, "workers.timeout_not_recorded")
                }
            }
        }
    }
    false
}

async fn ack(queue: &dyn TaskQueue, delivery: &Delivery) {
    if let Err(e) = queue.ack(&delivery.id).await {
        // Acknowledging again later is harmless: the task is finished in Postgres and
        // a redelivery is skipped by `begin_attempt`.
        tracing::warn!(task.id = %delivery.task_id, error = %e, "workers.ack_failed");
    }
}
