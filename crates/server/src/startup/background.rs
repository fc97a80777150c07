//! The background runtime of one replica: the review workers on the queue, and the
//! periodic jobs with the runners' preparer.

use super::checks;
use crate::config::Config;
use reviewd_api::state::AppState;
use reviewd_domain::ports::TaskQueue;
use reviewd_runtime::scheduler::Scheduler;
use reviewd_runtime::worker::{self, WorkerSettings, Workers};
use reviewd_store_postgres::{PgJobLedger, PgPool};
use std::sync::Arc;
use std::time::Duration;

/// The longest wait between two looks at the periodic jobs.
const SCHEDULER_TICK: Duration = Duration::from_secs(15);

/// The review workers, unless `REVIEW_WORKERS_ENABLED` is off.
pub(super) fn workers(
    config: &Config,
    state: &AppState,
    queue: Arc<dyn TaskQueue>,
) -> Option<Workers> {
    if !config.review_workers_enabled {
        return None;
    }
    let consumer = config.queue_consumer_name.clone().unwrap_or_else(|| {
        let machine = checks::machine_name(&config.hostname);
        match config.port {
            // An ephemeral port is new at every start: so is the name.
            0 => format!("{machine}-{}", uuid::Uuid::new_v4().simple()),
            port => format!("{machine}-{port}"),
        }
    });
    let concurrency = usize::try_from(config.ai_review_concurrency).unwrap_or(1);
    Some(worker::spawn(
        worker::Services {
            engine: state.engine.clone(),
            tasks: state.tasks.clone(),
            runners: state.runners.clone(),
            queue,
            clock: Arc::new(reviewd_adapters::clock::SystemClock),
        },
        WorkerSettings {
            concurrency: concurrency * worker::REVIEWS_PER_AI_CALL,
            review_timeout: config.review_timeout(),
            reclaim_idle: Duration::from_secs(config.queue_reclaim_idle_secs),
            consumer,
            retry_delay: Duration::from_secs(config.queue_retry_delay_secs),
            orphan_age: Duration::from_secs(config.queue_orphan_age_secs.max(1)),
            runner_grace: Duration::from_millis(config.runner_claim_grace_ms),
        },
    ))
}

/// The periodic jobs (each run by one replica per period, or by every replica for its
/// own files) and the preparer of runners' rounds, unless `PERIODIC_JOBS_ENABLED` is off.
pub(super) fn periodic_jobs(config: &Config, state: &AppState, pool: PgPool, instance: String) {
    if !config.periodic_jobs_enabled {
        return;
    }
    let interval = crate::jobs::collect_interval(config);
    let mut jobs = crate::jobs::shared(config, &state.monitoring);
    jobs.push(crate::jobs::runner_sweep(config, &state.runners));
    jobs.extend(crate::jobs::digests(config, &state.notifications));
    jobs.push(crate::jobs::resume_deliveries(config, &state.notifications));
    jobs.extend(crate::jobs::feedback_pass(config, &state.feedback));
    Scheduler::new(Arc::new(PgJobLedger::new(pool)), instance, jobs).spawn(
        interval.min(SCHEDULER_TICK),
        crate::jobs::local(config, &state.monitoring),
    );
    if config.runner_prepared_max_age_secs > 0 {
        reviewd_runtime::preparer::spawn(state.runners.clone(), state.preparer_wake.clone());
    }
}
