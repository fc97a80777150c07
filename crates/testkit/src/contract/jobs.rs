//! The `JobLedger` contract: of concurrent `begin`s one gets the run; a run blocks
//! its job while it runs (until it is stale) and, once succeeded, until the next
//! period; a failure blocks only for its cool-down and never the next period.
//! Periods are marked with `due_since` in the far past (this period) or the far
//! future (a period that began after every run), so no case waits.

use super::{Stores, seed};
use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use reviewd_domain::ports::JobOutcome;

pub async fn run(s: &Stores) {
    one_of_concurrent_begins_gets_the_run(s).await;
    a_succeeded_run_blocks_until_the_next_period(s).await;
    a_failed_run_does_not_block_the_next_period(s).await;
    a_stale_running_run_is_taken_over(s).await;
    jobs_are_independent_and_unknown_runs_finish_quietly(s).await;
}

const HOUR: TimeDelta = TimeDelta::hours(1);

fn this_period() -> DateTime<Utc> {
    DateTime::<Utc>::UNIX_EPOCH
}

fn next_period() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2100, 1, 1, 0, 0, 0).unwrap()
}

fn job() -> String {
    format!("job-{}", seed::unique())
}

async fn one_of_concurrent_begins_gets_the_run(s: &Stores) {
    let name = job();
    let (a, b) = tokio::join!(
        s.jobs.begin(&name, "replica-a", this_period(), HOUR),
        s.jobs.begin(&name, "replica-b", this_period(), HOUR),
    );
    let won = [a.unwrap(), b.unwrap()];
    assert_eq!(won.iter().flatten().count(), 1, "{won:?}");
}

async fn a_succeeded_run_blocks_until_the_next_period(s: &Stores) {
    let name = job();
    let run = s.jobs.begin(&name, "a", this_period(), HOUR).await.unwrap();
    let run = run.expect("nothing ran this period");
    assert_eq!(
        s.jobs.begin(&name, "b", this_period(), HOUR).await.unwrap(),
        None,
        "a running run blocks"
    );
    s.jobs
        .finish(run, &JobOutcome::Succeeded("3 row(s)".into()))
        .await
        .unwrap();
    assert_eq!(
        s.jobs.begin(&name, "b", this_period(), HOUR).await.unwrap(),
        None,
        "it ran this period"
    );
    let next = s.jobs.begin(&name, "b", next_period(), HOUR).await.unwrap();
    assert!(next.is_some_and(|id| id != run));
}

async fn a_failed_run_does_not_block_the_next_period(s: &Stores) {
    let name = job();
    let run = s.jobs.begin(&name, "a", this_period(), HOUR).await.unwrap();
    s.jobs
        .finish(
            run.unwrap(),
            &JobOutcome::Failed("pg_dump exited with 1".into()),
        )
        .await
        .unwrap();
    // Retried within the period only after a cool-down of a minute (what passes it
    // is tested per store: it needs the store's time to move).
    assert_eq!(
        s.jobs.begin(&name, "b", this_period(), HOUR).await.unwrap(),
        None,
        "a fresh failure blocks for the cool-down"
    );
    assert!(
        s.jobs
            .begin(&name, "b", next_period(), HOUR)
            .await
            .unwrap()
            .is_some()
    );
}

async fn a_stale_running_run_is_taken_over(s: &Stores) {
    let name = job();
    let first = s
        .jobs
        .begin(&name, "dead", this_period(), HOUR)
        .await
        .unwrap();
    assert!(first.is_some());
    assert_eq!(
        s.jobs.begin(&name, "b", this_period(), HOUR).await.unwrap(),
        None
    );
    let taken = s
        .jobs
        .begin(&name, "b", this_period(), TimeDelta::zero())
        .await
        .unwrap();
    assert!(
        taken.is_some_and(|id| Some(id) != first),
        "older than its stale limit"
    );
}

async fn jobs_are_independent_and_unknown_runs_finish_quietly(s: &Stores) {
    let (one, other) = (job(), job());
    assert!(
        s.jobs
            .begin(&one, "a", this_period(), HOUR)
            .await
            .unwrap()
            .is_some()
    );
    assert!(
        s.jobs
            .begin(&other, "a", this_period(), HOUR)
            .await
            .unwrap()
            .is_some()
    );
    s.jobs
        .finish(uuid::Uuid::new_v4(), &JobOutcome::Succeeded(String::new()))
        .await
        .unwrap();
}
