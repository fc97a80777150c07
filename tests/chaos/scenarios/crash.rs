//! The only server killed with SIGKILL, then started again on the same port (same
//! consumer name): it resumes its own unfinished tasks at once.

use super::refused;
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
