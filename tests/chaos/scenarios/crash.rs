//! The only server killed with SIGKILL, then started again on the same port (same
//! consumer name): it resumes its own unfinished tasks at once.

use super::flood::{AT_ONCE, flood_mrs};
use super::{refused, resend_refused};
use crate::run::{Run, Setup};
use reviewd_testkit::fakes::hosting::Posted;
use std::time::Duration;

/// Killed while the AI is answering: every MR completes, no comment twice.
pub async fn kill_mid_review(mrs: i64) {
    let mut run = Run::start("kill -9 mid-review", mrs, Setup::default()).await;
    let accepted = run.send_webhooks(1..=mrs).await;
    run.wait_mid_review().await;
    run.replicas[0].kill();
    tokio::time::sleep(Duration::from_millis(500)).await;
    run.replicas[0].start().await;
    run.fault_ended();
    let row = run.settle().await;
    run.conclude(&row, &refused(&accepted));
}

/// Killed while a MR's comments are being posted (each post's answer held 300 ms,
/// the post already on GitLab): the retry finds what was posted and does not post
/// it again.
pub async fn kill_mid_posting(mrs: i64) {
    let setup = Setup {
        ai_latency: Duration::from_millis(200),
        post_delay: Duration::from_millis(300),
        ..Setup::default()
    };
    let mut run = Run::start("kill -9 mid-posting", mrs, setup).await;
    let accepted = run.send_webhooks(1..=mrs).await;
    let outside = &run.outside;
    run.wait_until("comment posted", Duration::from_secs(60), || async move {
        (1..=mrs).any(|iid| {
            outside
                .posted(iid)
                .iter()
                .any(|p| matches!(p, Posted::Inline { .. }))
        })
    })
    .await;
    run.replicas[0].kill();
    let partial = (1..=mrs)
        .filter(|iid| {
            let posted = run.outside.posted(*iid);
            !posted.is_empty() && !posted.iter().any(|p| matches!(p, Posted::Comment { .. }))
        })
        .count();
    println!("{}: killed with {partial} MRs posted in part", run.name);
    tokio::time::sleep(Duration::from_millis(500)).await;
    run.replicas[0].start().await;
    run.fault_ended();
    let row = run.settle().await;
    run.conclude(&row, &refused(&accepted));
}

/// Killed while a burst of webhooks (`CHAOS_FLOOD_MRS`, `AT_ONCE` in flight) is
/// being answered, once a quarter were answered 200: every webhook answered 200
/// has its task after the restart (none of them is sent again), the ones the kill
/// cut off are accepted when sent again, and every MR is reviewed once.
pub async fn kill_mid_webhooks(mrs: i64) {
    let burst = flood_mrs(mrs);
    let setup = Setup {
        ai_latency: Duration::from_millis(50),
        ..Setup::default()
    };
    let mut run = Run::start("kill -9 mid-webhooks", burst, setup).await;
    let kill_after = usize::try_from(burst / 4).unwrap_or(1).max(1);
    let answers = run
        .send_webhooks_and_kill((1..=burst).collect(), AT_ONCE, kill_after)
        .await;
    let cut_off: Vec<i64> = answers
        .iter()
        .filter(|(_, status)| *status != 200)
        .map(|(iid, _)| *iid)
        .collect();
    println!(
        "{}: {} webhooks answered 200 before the kill, {} cut off and sent again",
        run.name,
        answers.len() - cut_off.len(),
        cut_off.len()
    );
    let mut extra = Vec::new();
    if cut_off.is_empty() {
        extra.push("the kill cut off no webhook: it came after the burst".to_owned());
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    run.replicas[0].start().await;
    run.fault_ended();
    extra.extend(resend_refused(&mut run, cut_off).await);
    let row = run.settle().await;
    run.conclude(&row, &extra);
}
