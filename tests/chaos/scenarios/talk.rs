//! Conversations under faults: a developer asks reviewd a question in every MR
//! (`@reviewer-bot ask ...`, reviewd's name on the fake GitLab) once the MRs are
//! reviewed. Each question must get exactly one answer: one comment carrying the
//! answer's marker for that note, none lost, none twice.
//!
//! - `kill_mid_answer`: the only server is killed with SIGKILL while the answers
//!   are being written and posted, started again, and every note hook is
//!   delivered a second time (GitLab redelivers what timed out).
//! - `redis_lost_mid_answer`: Redis restarts empty while the answers are under
//!   way: the queue forgets them, and the answers still come, from the record.

use crate::outside::WEBHOOK_SECRET;
use crate::run::{Run, Setup};
use crate::tally::Row;
use reviewd_testkit::fakes::hosting::Posted;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// The note id of MR `iid`'s question.
fn note_id(iid: i64) -> i64 {
    910_000 + iid
}

/// GitLab's note hook: `dev` (a developer of the project) asks in MR `iid`.
fn question(run: &Run, iid: i64) -> Value {
    let file = format!(
        "{}/fixtures/webhooks/hostA/note_merge_request.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut hook: Value =
        serde_json::from_str(&std::fs::read_to_string(file).expect("the fixture"))
            .expect("the fixture is JSON");
    let project: u64 = run.outside.project.id.parse().expect("a GitLab project id");
    hook["project"]["id"] = json!(project);
    hook["merge_request"]["iid"] = json!(iid);
    hook["object_attributes"]["id"] = json!(note_id(iid));
    hook["object_attributes"]["note"] = json!("@reviewer-bot ask why does this unwrap?");
    hook["user"]["id"] = json!(3);
    hook["user"]["username"] = json!("dev");
    hook
}

/// Delivers each MR's question; the statuses (0: no answer).
async fn ask(run: &Run, iids: impl IntoIterator<Item = i64>) -> Vec<u16> {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .expect("an HTTP client");
    let mut statuses = Vec::new();
    for iid in iids {
        let answer = client
            .post(run.app.url("/api/webhook/hostA"))
            .header("X-Gitlab-Token", WEBHOOK_SECRET)
            .header("X-Gitlab-Event", "Note Hook")
            .json(&question(run, iid))
            .send()
            .await;
        statuses.push(answer.map_or(0, |r| r.status().as_u16()));
    }
    statuses
}

/// How many answers to its question MR `iid` has on GitLab.
fn answers(run: &Run, iid: i64) -> usize {
    let marker = format!("<!-- reviewd:answer:{} -->", note_id(iid));
    run.outside
        .posted(iid)
        .iter()
        .filter(|p| matches!(p, Posted::Comment { body, .. } if body.contains(&marker)))
        .count()
}

/// The MR's conversation statuses, as the API shows them.
async fn statuses(run: &mut Run, project: &str, iid: i64) -> Option<Vec<String>> {
    let body = run
        .get(&format!(
            "/api/projects/{project}/merge-requests/{iid}/conversations"
        ))
        .await?;
    Some(
        body["data"]["conversations"]
            .as_array()?
            .iter()
            .filter_map(|c| c["status"].as_str().map(str::to_owned))
            .collect(),
    )
}

pub async fn kill_mid_answer(mrs: i64) {
    let setup = Setup {
        ai_latency: Duration::from_millis(300),
        ..Setup::default()
    };
    let mut run = Run::start("kill -9 mid-answer", mrs, setup).await;
    let mut extra = asked_once_answered(&mut run, mrs).await;
    run.replicas[0].kill();
    let answered_before = (1..=mrs).filter(|iid| answers(&run, *iid) > 0).count();
    println!(
        "{}: killed with {answered_before} of {mrs} questions answered",
        run.name
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    run.replicas[0].start().await;
    run.fault_ended();
    // GitLab delivers again what it thinks was not received.
    let again = ask(&run, 1..=mrs).await;
    if again.iter().any(|s| *s != 200) {
        extra.push(format!("redelivered questions not accepted: {again:?}"));
    }
    let row = answers_settled(&mut run, mrs).await;
    run.conclude(&row, &extra);
}

/// Redis restarted without its data once the first answer is posted: every
/// question is still answered once (the sweep queues again the tasks the queue
/// lost), none twice.
pub async fn redis_lost_mid_answer(mrs: i64) {
    let setup = Setup {
        ai_latency: Duration::from_millis(300),
        appendonly: false,
        ..Setup::default()
    };
    let mut run = Run::start("Redis lost mid-answer", mrs, setup).await;
    let mut extra = asked_once_answered(&mut run, mrs).await;
    let answered_before = (1..=mrs).filter(|iid| answers(&run, *iid) > 0).count();
    run.redis.restart_empty();
    if answered_before == usize::try_from(mrs).unwrap_or_default() {
        extra.push(
            "every question was answered before Redis restarted: nothing was lost to recover"
                .into(),
        );
    }
    run.fault_ended();
    println!(
        "{}: Redis emptied with {answered_before} of {mrs} questions answered",
        run.name
    );
    let row = answers_settled(&mut run, mrs).await;
    run.conclude(&row, &extra);
}

/// Reviews every MR (the questions are about reviewed code), asks each its
/// question and returns once the first answer is posted; what went wrong so far.
async fn asked_once_answered(run: &mut Run, mrs: i64) -> Vec<String> {
    run.send_webhooks(1..=mrs).await;
    let reviewed = run.settle().await;
    let mut extra = reviewed.violations();
    let accepted = ask(run, 1..=mrs).await;
    if accepted.iter().any(|s| *s != 200) {
        extra.push(format!("questions not accepted: {accepted:?}"));
    }
    let run_ref = &*run;
    run_ref
        .wait_until("answer posted", Duration::from_secs(60), || async move {
            (1..=mrs).any(|iid| answers(run_ref, iid) > 0)
        })
        .await;
    extra
}

/// Waits (at most two minutes) until no MR has a conversation still queued, then
/// counts each question's answers.
async fn answers_settled(run: &mut Run, mrs: i64) -> Row {
    let project = run
        .get("/api/projects")
        .await
        .and_then(|b| b["data"]["items"][0]["id"].as_str().map(str::to_owned))
        .unwrap_or_default();
    let until = Instant::now() + Duration::from_secs(120);
    let mut open = mrs;
    while Instant::now() < until {
        let mut still = 0;
        for iid in 1..=mrs {
            let done = statuses(run, &project, iid)
                .await
                .is_some_and(|s| !s.is_empty() && s.iter().all(|s| s != "queued"));
            still += i64::from(!done);
        }
        open = still;
        if open == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    // A replica that lost its task may still be finishing: count what it posts.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let counts: Vec<usize> = (1..=mrs).map(|iid| answers(run, iid)).collect();
    Row {
        name: run.name.to_owned(),
        mrs,
        completed: counts.iter().filter(|n| **n >= 1).count(),
        failed: 0,
        no_outcome: usize::try_from(open).unwrap_or_default(),
        duplicates: counts.iter().map(|n| n.saturating_sub(1)).sum(),
        missing: counts.iter().filter(|n| **n == 0).count(),
        stuck: usize::try_from(open).unwrap_or_default(),
        unexpected_5xx: 0,
        // The reviews before the questions were tallied, their gates with them.
        gate_wrong: 0,
        recovery: None,
    }
}
