//! A store lost under a running server: Redis restarted empty (the queue gone),
//! PostgreSQL killed for a few seconds.

use super::refused;
use crate::outside::FILES;
use crate::run::{Run, Setup};
use std::time::{Duration, Instant};

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
    let calls = run.outside.ai_calls().await;
    let twice: Vec<_> = (1..=mrs)
        .filter(|iid| calls.get(iid).copied().unwrap_or_default() > FILES)
        .collect();
    if !twice.is_empty() {
        extra.push(format!(
            "MRs reviewed more than once: {twice:?} (AI calls {calls:?})"
        ));
    }
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
    // GitLab sends a refused webhook again.
    let mut waiting: Vec<i64> = (before + 1..=mrs).collect();
    let resend_until = Instant::now() + Duration::from_secs(30);
    while !waiting.is_empty() && Instant::now() < resend_until {
        let statuses = run.send_webhooks(waiting.clone()).await;
        waiting = waiting
            .into_iter()
            .zip(statuses)
            .filter(|(_, s)| *s != 200)
            .map(|(iid, _)| iid)
            .collect();
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    if !waiting.is_empty() {
        extra.push(format!(
            "webhooks of MRs {waiting:?} still refused 30 s after PostgreSQL's return"
        ));
    }
    let row = run.settle().await;
    // How hard the workers spun while the database was out: each of these is an
    // attempt that could not start or end. A task is tried again every 2 s, so a
    // 3 s outage costs a few per MR; thousands were a hot loop (fixed, kept here).
    let log = std::fs::read_to_string(&run.replicas[0].log).unwrap_or_default();
    let (not_recorded, resumed) = (
        log.matches("workers.outcome_not_recorded").count(),
        log.matches("workers.resumed_own").count(),
    );
    println!(
        "{}: {not_recorded} outcomes not recorded, {resumed} own messages resumed",
        run.name
    );
    let bound = usize::try_from(mrs)
        .unwrap_or(usize::MAX)
        .saturating_mul(10);
    if not_recorded > bound || resumed > bound {
        extra.push(format!(
            "the workers spun during the outage: {not_recorded} outcomes not recorded, {resumed} own messages resumed (bound {bound})"
        ));
    }
    if row.recovery.is_some_and(|r| r > PG_RECOVERY) {
        extra.push(format!(
            "reviews done {:?} after PostgreSQL's return (limit {PG_RECOVERY:?})",
            row.recovery
        ));
    }
    run.conclude(&row, &extra);
}
