//! Two replicas on one database and queue; one of them fails while holding tasks:
//! the other takes them over one lease after the last heartbeat.

use super::refused;
use crate::run::{LEASE, Run, Setup};
use std::time::{Duration, Instant};

/// Slack over the lease for the first takeover: the survivor reclaims between two
/// pulls, once it has a free worker.
const FIRST_SLACK: Duration = Duration::from_secs(2);

/// Slack over the lease for the last one: the survivor is busy with reviews of its
/// own and takes one task over each time one of them ends.
const ALL_SLACK: Duration = Duration::from_secs(8);

/// The review timeout of the frozen-replica scenario (`REVIEW_TIMEOUT_MINUTES`): short,
/// so the freeze outlasts it and the timeout fires as the replica resumes.
const REVIEW_TIMEOUT: (&str, Duration) = ("0.25", Duration::from_secs(15));

/// How many of `tasks` replica `replica` still holds in `processing`.
fn still_held(run: &Run, replica: usize, tasks: &[String]) -> usize {
    let held = run.processing(Some(replica));
    tasks.iter().filter(|t| held.contains(t)).count()
}

/// Waits until `replica` holds none of `tasks`; reports when the first and the last
/// were taken over (from `since`), or a violation.
async fn taken_over(run: &Run, replica: usize, tasks: &[String], since: Instant) -> Vec<String> {
    let mut first = None;
    loop {
        let held = still_held(run, replica, tasks);
        if held < tasks.len() && first.is_none() {
            first = Some(since.elapsed());
        }
        if held == 0 {
            break;
        }
        if since.elapsed() > LEASE + ALL_SLACK {
            return vec![format!(
                "{held} of the {} tasks {} held were not taken over within {:?}",
                tasks.len(),
                run.replicas[replica].name,
                LEASE + ALL_SLACK
            )];
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (first, all) = (first.unwrap_or_default(), since.elapsed());
    println!(
        "{}: {} tasks of {}: first taken over after {first:.1?}, all after {all:.1?} (lease {LEASE:?})",
        run.name,
        tasks.len(),
        run.replicas[replica].name
    );
    if first > LEASE + FIRST_SLACK {
        return vec![format!(
            "the first takeover took {first:.1?}, lease {LEASE:?}"
        )];
    }
    Vec::new()
}

/// One replica killed mid-review: the other takes its tasks over within the lease and
/// finishes every MR.
pub async fn replica_killed(mrs: i64) {
    let setup = Setup {
        replicas: 2,
        ..Setup::default()
    };
    let mut run = Run::start("replica killed (2 replicas)", mrs, setup).await;
    let mut extra = refused(&run.send_webhooks(1..=mrs).await);
    let victim = run.wait_mid_review().await;
    run.ask(1 - victim);
    let held = run.processing(Some(victim));
    let killed = Instant::now();
    run.replicas[victim].kill();
    run.fault_ended();
    extra.extend(taken_over(&run, victim, &held, killed).await);
    let row = run.settle().await;
    run.conclude(&row, &extra);
}

/// One replica frozen (SIGSTOP) past the lease and the review timeout, then resumed:
/// the other took its tasks over; the resumed one records nothing for them (no
/// completed review marked failed) and posts nothing twice.
pub async fn replica_frozen(mrs: i64) {
    let setup = Setup {
        replicas: 2,
        review_timeout_minutes: Some(REVIEW_TIMEOUT.0),
        ..Setup::default()
    };
    let mut run = Run::start("replica frozen past the lease", mrs, setup).await;
    let mut extra = refused(&run.send_webhooks(1..=mrs).await);
    let victim = run.wait_mid_review().await;
    run.ask(1 - victim);
    let held = run.processing(Some(victim));
    let frozen = Instant::now();
    run.replicas[victim].freeze();
    extra.extend(taken_over(&run, victim, &held, frozen).await);
    let past = REVIEW_TIMEOUT.1.max(LEASE) + Duration::from_secs(2);
    tokio::time::sleep(past.saturating_sub(frozen.elapsed())).await;
    run.replicas[victim].thaw();
    run.fault_ended();
    let row = run.settle().await;
    // Which way the resumed replica let its tasks go (its timeout firing, or its
    // heartbeat finding them taken): shown, so a run shows the path it took.
    let log = std::fs::read_to_string(&run.replicas[victim].log).unwrap_or_default();
    println!(
        "{}: after the thaw, {} review timeouts and {} attempts found taken over",
        run.name,
        log.matches("workers.review_timed_out").count(),
        log.matches("workers.attempt_taken_over").count()
    );
    run.conclude(&row, &extra);
}
