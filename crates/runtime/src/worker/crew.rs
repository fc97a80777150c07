//! One delivery's life in a worker: which messages come next (its own, reclaimed, new),
//! the run with its heartbeat and timeout, then the acknowledgement or the give-back
//! (a new message after a delay, then the old one dropped).

use super::{QUEUE_RETRY, Services, WorkerSettings};
use futures_util::future::{Either, select};
use reviewd_domain::ports::{Clock, Delivery, QueueError, TaskQueue};
use reviewd_domain::services::{ReviewEngine, RunOutcome, RunnerService, TaskService};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use uuid::Uuid;

/// Wait before a task whose outcome could not be recorded (the database was out) is
/// tried again: short, since nothing was spent, and the attempt resumes as this
/// worker's own.
const STORE_RETRY_DELAY: Duration = Duration::from_secs(2);

/// How long one pull waits for work. Kept below the Redis client's response timeout
/// (a blocked `XREADGROUP` longer than it would be reported as a failure).
const PULL_BLOCK: Duration = Duration::from_millis(250);

/// What a worker runs a delivery with.
#[derive(Clone)]
pub(super) struct Crew {
    pub(super) engine: Arc<ReviewEngine>,
    tasks: Arc<TaskService>,
    runners: Arc<RunnerService>,
    pub(super) queue: Arc<dyn TaskQueue>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) settings: WorkerSettings,
    /// Tasks this process is running: a second delivery of one of them (a reclaim,
    /// a message queued again after a queue loss) must not start it a second time.
    in_flight: Arc<Mutex<HashSet<Uuid>>>,
}

impl Crew {
    pub(super) fn new(services: Services, settings: WorkerSettings) -> Self {
        Self {
            engine: services.engine,
            tasks: services.tasks,
            runners: services.runners,
            queue: services.queue,
            clock: services.clock,
            settings,
            in_flight: Arc::default(),
        }
    }

    /// Makes the queue again when it is gone, then queues every unfinished task
    /// anew; retried until both succeed, so no task is left without a message.
    pub(super) async fn recover_if_lost(&self) {
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
                    self.clock.sleep(QUEUE_RETRY).await;
                }
            }
        }
    }

    pub(super) fn claim_in_process(&self, task_id: Uuid) -> bool {
        self.in_flight
            .lock()
            .is_ok_and(|mut set| set.insert(task_id))
    }

    fn release_in_process(&self, task_id: Uuid) {
        if let Ok(mut set) = self.in_flight.lock() {
            set.remove(&task_id);
        }
    }

    fn is_in_process(&self, task_id: Uuid) -> bool {
        self.in_flight
            .lock()
            .is_ok_and(|set| set.contains(&task_id))
    }

    /// This consumer's own unfinished messages first (after a restart), then those
    /// abandoned by silent workers, then new ones. A failed pull keeps what was
    /// reclaimed: those messages are now this consumer's to run.
    pub(super) async fn next_batch(
        &self,
        free: usize,
        resume: bool,
    ) -> Result<Vec<Delivery>, QueueError> {
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

    /// Runs one delivery to its end, then acknowledges its message or queues the
    /// task again after a delay.
    pub(super) async fn handle(
        &self,
        delivery: Delivery,
        permit: tokio::sync::OwnedSemaphorePermit,
    ) {
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
            self.clock.sleep(delay).await;
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
        let run = Box::pin(self.engine.run(task_id, &settings.consumer));
        let outcome = match select(run, self.clock.sleep(settings.review_timeout)).await {
            Either::Left((outcome, _)) => Ok(outcome),
            Either::Right(_) => Err(()),
        };
        beat.abort();
        let label = match &outcome {
            Ok(Ok(RunOutcome::Completed { .. })) => "completed",
            Ok(Ok(RunOutcome::Failed { .. })) => "failed",
            Ok(Ok(RunOutcome::Retry { .. })) => "retried",
            Ok(Ok(RunOutcome::Busy)) => "deferred",
            Ok(Ok(RunOutcome::Skipped)) => "skipped",
            Ok(Ok(RunOutcome::TakenOver)) => "taken_over",
            Ok(Ok(RunOutcome::Answered)) => "answered",
            Ok(Err(_)) => "not_recorded",
            Err(()) => "timed_out",
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
            Err(()) => {
                self.time_out(delivery).await;
                None
            }
        }
    }

    /// Fails a review that ran past its timeout, unless another worker took it over.
    async fn time_out(&self, delivery: &Delivery) {
        let (task_id, settings) = (delivery.task_id, &self.settings);
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
    }

    pub(super) async fn ack(&self, delivery: &Delivery) {
        if let Err(e) = self.queue.ack(&delivery.id).await {
            // Acknowledging again later is harmless: the task is finished in Postgres
            // and a redelivery is skipped by `begin_attempt`.
            tracing::warn!(task.id = %delivery.task_id, error = %e, "workers.ack_failed");
        }
    }
}
