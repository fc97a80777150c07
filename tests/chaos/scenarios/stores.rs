//! A store lost under a running server: Redis restarted empty (the queue gone) or
//! from its append-only file, PostgreSQL killed for a few seconds or stopped for 30.

use super::{refused, resend_refused};
use crate::outside::FILES;
use crate::process::alive;
use crate::run::{Run, Setup};
use reviewd_testkit::fakes::hosting::Posted;
use std::time::{Duration, Instant};

/// MRs whose files went to the AI more than once (each file is one call): a review
/// run twice.
async fn reviewed_twice(run: &Run) -> Vec<String> {
    let calls = run.outside.ai_calls().await;
    let twice: Vec<_> = (1..=run.mrs)
        .filter(|iid| calls.get(iid).copied().unwrap_or_default() > FILES)
        .collect();
    if twice.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "MRs reviewed more than once: {twice:?} (AI calls {calls:?})"
    )]
}

/// Redis without persistence killed and started empty mid-review: the queue is made
/// again from the tasks' records; none lost, none run twice (each file of each MR
/// goes to the AI once).
pub async fn redis_restarted_empty(mrs: i64) {
    let setup = Setup {
        appendonly: false,
        ..Setup::default()
    };
    let mut run = Run::start("Redis restarted empty", mrs, setup).await;
    let accepted = run.send_webhooks(1..=mrs).await;
    run.wait_mid_review().await;
    run.redis.restart_empty();
    run.fault_ended();
    let row = run.settle().await;
    let mut extra = refused(&accepted);
    extra.extend(reviewed_twice(&run).await);
    run.conclude(&row, &extra);
}

/// Redis with its append-only file killed (SIGKILL) mid-review and started again on
/// the same directory and port: the queue comes back from disk; every MR completes,
/// none lost, none run twice.
pub async fn redis_restarted_persistent(mrs: i64) {
    let mut run = Run::start("Redis killed, AOF kept", mrs, Setup::default()).await;
    let accepted = run.send_webhooks(1..=mrs).await;
    run.wait_mid_review().await;
    run.redis.restart_persistent();
    run.fault_ended();
    let row = run.settle().await;
    let mut extra = refused(&accepted);
    extra.extend(reviewed_twice(&run).await);
    run.conclude(&row, &extra);
}

/// How long PostgreSQL stays down.
const PG_DOWN: Duration = Duration::from_secs(3);

/// How soon after PostgreSQL's return the reviews must be done.
const PG_RECOVERY: Duration = Duration::from_secs(60);

/// PostgreSQL killed for 3 s mid-review: webhooks meanwhile are refused with a 503
/// (never a silent 200) and accepted when sent again; reviews finish within a minute
/// of its return, nothing posted twice.
pub async fn postgres_killed(mrs: i64) {
    let mut run = Run::start("PostgreSQL killed 3 s", mrs, Setup::default()).await;
    let before = (mrs / 2).max(1);
    let mut extra = refused(&run.send_webhooks(1..=before).await);
    run.wait_mid_review().await;
    let down = Instant::now();
    run.pg.kill();
    let while_down = run.send_webhooks(before + 1..=mrs).await;
    tokio::time::sleep(PG_DOWN.saturating_sub(down.elapsed())).await;
    run.pg.restart();
    // A pooled connection broken by the crash may fail one more request.
    run.outage(down, Duration::from_secs(3));
    run.fault_ended();
    let not_503 = while_down.iter().filter(|s| **s != 503).count();
    if not_503 > 0 {
        extra.push(format!(
            "webhooks while PostgreSQL was down answered {while_down:?}, not 503"
        ));
    }
    extra.extend(resend_refused(&mut run, (before + 1..=mrs).collect()).await);
    let row = run.settle().await;
    // A task is tried again every 2 s, so a 3 s outage costs a few per MR; thousands
    // were a hot loop (fixed, kept here).
    extra.extend(spin(&run, 10));
    if row.recovery.is_some_and(|r| r > PG_RECOVERY) {
        extra.push(format!(
            "reviews done {:?} after PostgreSQL's return (limit {PG_RECOVERY:?})",
            row.recovery
        ));
    }
    run.conclude(&row, &extra);
}

/// How hard the workers spun while the database was out: each of these log events is
/// an attempt that could not start or end. More than `per_mr` of either per MR is a
/// hot loop.
fn spin(run: &Run, per_mr: usize) -> Vec<String> {
    let log = std::fs::read_to_string(&run.replicas[0].log).unwrap_or_default();
    let (not_recorded, resumed) = (
        log.matches("workers.outcome_not_recorded").count(),
        log.matches("workers.resumed_own").count(),
    );
    println!(
        "{}: {not_recorded} outcomes not recorded, {resumed} own messages resumed",
        run.name
    );
    let bound = usize::try_from(run.mrs)
        .unwrap_or(usize::MAX)
        .saturating_mul(per_mr);
    if not_recorded > bound || resumed > bound {
        return vec![format!(
            "the workers spun during the outage: {not_recorded} outcomes not recorded, {resumed} own messages resumed (bound {bound})"
        )];
    }
    Vec::new()
}

/// How long PostgreSQL stays stopped in the long outage.
const PG_STOPPED: Duration = Duration::from_secs(30);

/// The spin bound of the long outage, per MR: a task is tried again every 2 s, about
/// 15 tries in 30 s, with room for the few MRs that have two tasks in flight.
const PG_STOPPED_SPIN_PER_MR: usize = 25;

/// PostgreSQL stopped (`pg_ctl stop -m fast`) for 30 s while comments are being
/// posted (each post's answer held 300 ms): the server process stays up the whole
/// time, webhooks meanwhile get a 503 and are accepted when sent again, every review
/// finishes within a minute of the return, nothing posted twice, and the workers
/// retry at their pace rather than spin.
pub async fn postgres_down_30s(mrs: i64) {
    let setup = Setup {
        ai_latency: Duration::from_millis(200),
        post_delay: Duration::from_millis(300),
        ..Setup::default()
    };
    let mut run = Run::start("PostgreSQL stopped 30 s", mrs, setup).await;
    let before = (mrs / 2).max(1);
    let mut extra = refused(&run.send_webhooks(1..=before).await);
    let outside = &run.outside;
    run.wait_until("comment posted", Duration::from_secs(60), || async move {
        (1..=before).any(|iid| {
            outside
                .posted(iid)
                .iter()
                .any(|p| matches!(p, Posted::Inline { .. }))
        })
    })
    .await;
    let pid = run.replicas[0].pid().expect("the server runs");
    let down = Instant::now();
    run.pg.stop();
    println!(
        "{}: PostgreSQL stopped while comments were being posted",
        run.name
    );
    let while_down = run.send_webhooks(before + 1..=mrs).await;
    let mut exited = false;
    while down.elapsed() < PG_STOPPED {
        exited |= !alive(pid);
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    run.pg.restart();
    // A pooled connection broken by the stop may fail one more request.
    run.outage(down, Duration::from_secs(3));
    run.fault_ended();
    let not_503 = while_down.iter().filter(|s| **s != 503).count();
    if not_503 > 0 {
        extra.push(format!(
            "webhooks while PostgreSQL was down answered {while_down:?}, not 503"
        ));
    }
    extra.extend(resend_refused(&mut run, (before + 1..=mrs).collect()).await);
    let row = run.settle().await;
    exited |= !alive(pid);
    if exited {
        extra.push("the server process exited while PostgreSQL was down".to_owned());
    }
    extra.extend(spin(&run, PG_STOPPED_SPIN_PER_MR));
    if row.recovery.is_some_and(|r| r > PG_RECOVERY) {
        extra.push(format!(
            "reviews done {:?} after PostgreSQL's return (limit {PG_RECOVERY:?})",
            row.recovery
        ));
    }
    run.conclude(&row, &extra);
}
