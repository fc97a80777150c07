//! The server's review workers: they take tasks from the queue, at most
//! [`REVIEWS_PER_AI_CALL`] × `AI_REVIEW_CONCURRENCY` at once, run them through the
//! engine, and acknowledge a message only once its outcome is recorded.
//!
//! A running task is kept alive by a heartbeat (every quarter of the lease,
//! `QUEUE_RECLAIM_IDLE_SECS`) on both its queue message and its record, so a live
//! worker is never robbed however long the review, and a dead worker's tasks are
//! taken over one lease after its last beat. The consumer name is stable across
//! restarts: a restarted server first resumes its own unfinished messages. When the
//! queue itself is lost (Redis restarted empty, flushed, failed over), it is made
//! again and every unfinished task is queued anew from its record.

use reviewd_domain::ports::{Delivery, QueueError, TaskQueue};
use reviewd_domain::services::{ReviewEngine, RunOutcome, RunnerService, TaskService};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Semaphore;
use uuid::Uuid;

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

/// Wait before a task whose outcome could not be recorded (the database was out) is
/// tried again: short, since nothing was spent, and the attempt resumes as this
/// worker's own.
const STORE_RETRY_DELAY: Duration = Duration::from_secs(2);

/// How long one pull waits for work. Kept below the Redis client's response timeout
/// (a blocked `XREADGROUP` longer than it would be reported as a failure).
const PULL_BLOCK: Duration = Duration::from_millis(250);

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

/// The running workers, for a graceful stop.
pub struct Workers {
    stopping: Arc<AtomicBool>,
    permits: Arc<Semaphore>,
    concurrency: u32,
}

impl Workers {
    /// Stops taking tasks and waits up to `timeout` for the running ones to finish.
    /// Returns whether all finished; a task still running is left pending in the
    /// queue, and this process resumes it at its next start (or another worker takes
    /// it over one lease later).
    pub async fn drain(&self, timeout: Duration) -> bool {
        self.stopping.store(true, Ordering::SeqCst);
        let all = self.permits.acquire_many(self.concurrency);
        let drained = matches!(tokio::time::timeout(timeout, all).await, Ok(Ok(_)));
        tracing::info!(drained, "workers.stopped");
        drained
    }
}

/// What a worker runs a delivery with.
#[derive(Clone)]
struct Crew {
    engine: Arc<ReviewEngine>,
    tasks: Arc<TaskService>,
    runners: Arc<RunnerService>,
    queue: Arc<dyn TaskQueue>,
    settings: WorkerSettings,
    /// Tasks this process is running: a second delivery of one of them (a reclaim,
    /// a message queued again after a queue loss) must not start it a second time.
    in_flight: Arc<Mutex<HashSet<Uuid>>>,
}

pub fn spawn(
    engine: Arc<ReviewEngine>,
    tasks: Arc<TaskService>,
    runners: Arc<RunnerService>,
    queue: Arc<dyn TaskQueue>,
    settings: WorkerSettings,
) -> Workers {
    spawn_orphan_sweep(tasks.clone(), settings.orphan_age);
    let concurrency = settings.concurrency.max(1);
    let permits = Arc::new(Semaphore::new(concurrency));
    let stopping = Arc::new(AtomicBool::new(false));
    let handle = Workers {
        stopping: stopping.clone(),
        permits: permits.clone(),
        concurrency: u32::try_from(concurrency).unwrap_or(u32::MAX),
    };
    let crew = Crew {
        engine,
        tasks,
        runners,
        queue,
        settings,
        in_flight: Arc::default(),
    };
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
                    tokio::time::sleep(Duration::from_secs(1)).await;
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

impl Crew {
    /// Makes the queue again when it is gone, then queues every unfinished task
    /// anew; retried until both succeed, so no task is left without a message.
    async fn recover_if_lost(&self) {
        loop {
            let recovered = match self.queue.ensure().await {
                Ok(false) => return,
                Ok(true) => self.tasks.requeue_lost().await.map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            };
            match recovered {
                Ok(count) => {
                    tracing::warn!(count, "workers.queue_recreated");
                    return;
                }
                Err(e) => {
                    tracing::error!(error = %e, "workers.queue_recovery_failed");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    }

    fn claim_in_process(&self, task_id: Uuid) -> bool {
        self.in_flight
            .lock()
            .is_ok_and(|mut set| set.insert(task_id))
    }

    fn release_in_process(&self, task_id: Uuid) {
        if let Ok(mut set) = self.in_flight.lock() {
            set.remove(&task_id);
        }
    }

    /// This consumer's own unfinished messages first (after a restart), then those
    /// abandoned by silent workers, then new ones. A failed pull keeps what was
    /// reclaimed: those messages are now this consumer's to run.
    async fn next_batch(&self, free: usize, resume: bool) -> Result<Vec<Delivery>, QueueError> {
        let consumer = &self.settings.consumer;
        if resume {
            let own: Vec<Delivery> = self
                .queue
                .pending(consumer, free)
                .await?
                .into_iter()
                .filter(|d| !self.is_in_process(d.task_id))
                .collect();
            if !own.is_empty() {
                tracing::warn!(count = own.len(), "workers.resumed_own");
                return Ok(own);
            }
        }
        let mut batch = self
            .queue
            .reclaim(consumer, self.settings.reclaim_idle, free)
            .await?;
        if !batch.is_empty() {
            tracing::warn!(count = batch.len(), "workers.reclaimed");
        }
        if batch.len() < free {
            match self
                .queue
                .pull(consumer, free - batch.len(), PULL_BLOCK)
                .await
            {
                Ok(pulled) => batch.extend(pulled),
                Err(e) if !batch.is_empty() => tracing::warn!(error = %e, "workers.pull_failed"),
                Err(e) => return Err(e),
            }
        }
        Ok(batch)
    }

    fn is_in_process(&self, task_id: Uuid) -> bool {
        self.in_flight
            .lock()
            .is_ok_and(|set| set.contains(&task_id))
    }

    /// Runs one delivery to its end, then acknowledges its message or queues the
    /// task again after a delay.
    async fn handle(&self, delivery: Delivery, permit: tokio::sync::OwnedSemaphorePermit) {
        let task_id = delivery.task_id;
        let retry = if self.runners.leave_to_runner(task_id).await {
            // A capable runner is online with room: it claims the task from Postgres;
            // this message comes back after the delay, and then finds the task taken
            // (skipped) or runs it.
            metrics::counter!("reviewd_review_tasks_total", "outcome" => "left_for_runner")
                .increment(1);
            tracing::debug!(task.id = %task_id, "workers.left_for_runner");
            Some(self.settings.runner_grace)
        } else {
            self.process(&delivery).await
        };
        drop(permit);
        if let Some(delay) = retry {
            // The permit is free while waiting; the old message stays pending until
            // the new one exists, so a crash here loses nothing. The task stays in
            // `in_flight` meanwhile: this consumer's own pending message must not be
            // picked up again at once (during an outage that made a hot loop).
            tokio::time::sleep(delay).await;
            // Out of `in_flight` before the new message exists, so that this process
            // runs it when it pulls it.
            self.release_in_process(task_id);
            // A new message first, then drop the old one: the task is never without
            // one.
            match self.queue.push(task_id).await {
                Ok(_) => self.ack(&delivery).await,
                Err(e) => tracing::error!(task.id = %task_id, error = %e, "workers.requeue_failed"),
            }
        } else {
            self.release_in_process(task_id);
        }
    }

    /// Runs one delivery with its heartbeat; returns the delay after which the task
    /// is to be queued again, if it is.
    async fn process(&self, delivery: &Delivery) -> Option<Duration> {
        let settings = &self.settings;
        let task_id = delivery.task_id;
        let beat = {
            let (crew, delivery) = (self.clone(), delivery.clone());
            tokio::spawn(async move { crew.heartbeat(&delivery).await })
        };
        let outcome = tokio::time::timeout(
            settings.review_timeout,
            self.engine.run(task_id, &settings.consumer),
        )
        .await;
        beat.abort();
        let label = match &outcome {
            Ok(Ok(RunOutcome::Completed { .. })) => "completed",
            Ok(Ok(RunOutcome::Failed { .. })) => "failed",
            Ok(Ok(RunOutcome::Retry { .. })) => "retried",
            Ok(Ok(RunOutcome::Busy)) => "deferred",
            Ok(Ok(RunOutcome::Skipped)) => "skipped",
            Ok(Ok(RunOutcome::TakenOver)) => "taken_over",
            Ok(Err(_)) => "not_recorded",
            Err(_) => "timed_out",
        };
        metrics::counter!("reviewd_review_tasks_total", "outcome" => label).increment(1);
        match outcome {
            Ok(Ok(RunOutcome::Retry { .. } | RunOutcome::Busy)) => Some(settings.retry_delay),
            // The message went to the worker that took the task over: not ours to ack.
            Ok(Ok(RunOutcome::TakenOver)) => None,
            Ok(Ok(_)) => {
                self.ack(delivery).await;
                None
            }
            Ok(Err(e)) => {
                // The database was out while the attempt started or ended: try again
                // soon, as this worker's own attempt, rather than wait for a lease.
                tracing::error!(task.id = %task_id, error = %e, "workers.outcome_not_recorded");
                Some(STORE_RETRY_DELAY)
            }
            Err(_) => {
                tracing::error!(task.id = %task_id, timeout_s = settings.review_timeout.as_secs(), "workers.review_timed_out");
                match self
                    .engine
                    .time_out(task_id, &settings.consumer, settings.review_timeout)
                    .await
                {
                    Ok(true) => self.ack(delivery).await,
                    // Taken over meanwhile: the other worker owns the task and message.
                    Ok(false) => {}
                    Err(e) => {
                        tracing::error!(task.id = %task_id, error = %e, "workers.timeout_not_recorded");
                    }
                }
                None
            }
        }
    }

    /// Renews the attempt and its message every quarter of the lease, until the
    /// caller aborts it when the run ends, or the attempt is no longer ours. A missed
    /// beat is logged, never fatal: the engine checks the attempt is still ours
    /// before it posts anything.
    async fn heartbeat(&self, delivery: &Delivery) {
        let period = (self.settings.reclaim_idle / 4).max(Duration::from_millis(250));
        let consumer = &self.settings.consumer;
        let mut interval = tokio::time::interval(period);
        interval.tick().await; // the first tick is immediate: the attempt is new
        loop {
            interval.tick().await;
            match self.engine.heartbeat(delivery.task_id, consumer).await {
                Ok(true) => {}
                // Taken over (or finished): the message is the other worker's now,
                // and renewing it would take it back.
                Ok(false) => {
                    tracing::warn!(task.id = %delivery.task_id, "workers.attempt_taken_over");
                    return;
                }
                Err(e) => {
                    tracing::warn!(task.id = %delivery.task_id, error = %e, "workers.attempt_renew_failed");
                }
            }
            if let Err(e) = self
                .queue
                .renew(consumer, std::slice::from_ref(&delivery.id))
                .await
            {
                tracing::warn!(task.id = %delivery.task_id, error = %e, "workers.message_renew_failed");
            }
        }
    }

    async fn ack(&self, delivery: &Delivery) {
        if let Err(e) = self.queue.ack(&delivery.id).await {
            // Acknowledging again later is harmless: the task is finished in Postgres
            // and a redelivery is skipped by `begin_attempt`.
            tracing::warn!(task.id = %delivery.task_id, error = %e, "workers.ack_failed");
        }
    }
}
