//! Feedback on reviewd's comments end to end, on the stateful fake GitLab and
//! GitHub: people react, reply and resolve threads on the platform (as other
//! users), the platform's webhooks arrive in their real shapes where it sends
//! them, the periodic pass reads the rest, a pushed fix marks a comment
//! implemented, and the review and project stats show the acceptance rate.

use super::{app_with_ai, fake_ai, review_answer, wait_for};
use crate::helpers::{TestApp, create_github_config, create_gitlab_config, json};
use reqwest::StatusCode;
use reviewd_domain::model::diff::FileDiff;
use reviewd_testkit::contract::hosting::FakeServer;
use reviewd_testkit::fakes::hosting::{MrFixture, ProjectFixture, modified};
use reviewd_testkit::{FakeGithub, FakeGitlab};
use serde_json::{Value, json};
use std::time::Duration;
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

const HEAD_1: &str = "f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1";
const HEAD_2: &str = "f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2";
/// The MR adds lines 2 and 3 (the model comments on both).
const DIFF_1: &str =
    "@@ -1,2 +1,4 @@\n fn main() {\n+    let x = foo().unwrap();\n+    run();\n }\n";
/// The MR once the fix is pushed.
pub(super) const DIFF_2: &str =
    "@@ -1,2 +1,4 @@\n fn main() {\n+    let x = foo()?;\n+    run();\n }\n";
/// What changed between the heads: the commented line 2, replaced.
pub(super) const FIX: &str = "@@ -1,4 +1,4 @@\n fn main() {\n-    let x = foo().unwrap();\n+    let x = foo()?;\n     run();\n }\n";

pub(super) fn fixture(platform: &str, name: &str) -> Value {
    let file = format!(
        "{}/fixtures/webhooks/{platform}/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

pub(super) async fn deliver_a(app: &TestApp, event: &str, body: &Value) -> Value {
    let r = reqwest::Client::new()
        .post(app.url("/api/webhook/hostA"))
        .header("X-Gitlab-Token", "hook-secret-a")
        .header("X-Gitlab-Event", event)
        .json(body)
        .send()
        .await
        .unwrap();
    json(r, StatusCode::OK).await["data"].clone()
}

/// GitHub's `pull_request` "opened" hook (the fixture) for pull request 2 of
/// `repo` at `head`.
pub(super) fn opened_pr(repo: &reviewd_domain::ports::ProjectRef, head: &str) -> Value {
    let mut opened = fixture("hostB", "pull_request.opened.json");
    opened["repository"]["id"] = json!(repo.id.parse::<u64>().unwrap());
    opened["repository"]["full_name"] = json!(repo.full_path);
    opened["pull_request"]["number"] = json!(2);
    opened["number"] = json!(2);
    opened["pull_request"]["head"]["sha"] = json!(head);
    opened
}

pub(super) async fn deliver_b(app: &TestApp, event: &str, body: &Value) -> Value {
    let bytes = serde_json::to_vec(body).unwrap();
    let signature = format!(
        "sha256={}",
        reviewd_crypto::hmac_sha256_hex(b"hook-secret-b", &bytes)
    );
    let r = reqwest::Client::new()
        .post(app.url("/api/webhook/hostB"))
        .header("X-GitHub-Event", event)
        .header("X-Hub-Signature-256", signature)
        .header("content-type", "application/json")
        .body(bytes)
        .send()
        .await
        .unwrap();
    json(r, StatusCode::OK).await["data"].clone()
}

/// The review's feedback as (status, user), sorted.
pub(super) async fn feedback(app: &TestApp, review: &str) -> Vec<(String, Option<String>)> {
    let root = app.root().await;
    let body = json(
        root.get(&format!("/api/reviews/{review}/feedbacks")).await,
        StatusCode::OK,
    )
    .await;
    let mut all: Vec<_> = body["data"]["feedbacks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            assert_eq!(
                f["feedbackType"],
                if f["trackingStatus"] == "rejected" {
                    "negative"
                } else {
                    "positive"
                },
                "{f}"
            );
            (
                f["trackingStatus"].as_str().unwrap().to_owned(),
                f["username"].as_str().map(str::to_owned),
            )
        })
        .collect();
    all.sort();
    all
}

/// Polls the review's feedback until it reads `expected` (replies and the pass
/// are read after the webhook's answer); the last reading otherwise.
pub(super) async fn eventually(
    app: &TestApp,
    review: &str,
    expected: &[(&str, Option<&str>)],
) -> Vec<(String, Option<String>)> {
    let want: Vec<(String, Option<String>)> = expected
        .iter()
        .map(|(s, u)| ((*s).to_owned(), u.map(str::to_owned)))
        .collect();
    let mut got = Vec::new();
    for _ in 0..150 {
        got = feedback(app, review).await;
        if got == want {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    got
}

pub(super) fn pair(status: &str, user: Option<&str>) -> (String, Option<String>) {
    (status.to_owned(), user.map(str::to_owned))
}

pub(super) async fn acceptance(app: &TestApp, review: &str) -> (Value, Value) {
    let root = app.root().await;
    let detail = json(
        root.get(&format!("/api/reviews/{review}")).await,
        StatusCode::OK,
    )
    .await;
    let stats = json(root.get("/api/projects/stats").await, StatusCode::OK).await;
    (
        detail["data"]["review"]["acceptanceRate"].clone(),
        stats["data"]["stats"]["acceptanceRate"].clone(),
    )
}

/// The periodic jobs on (tests run without them), the feedback pass every second,
/// so that what no webhook announces shows up.
pub(super) fn pass_every_second() -> [(&'static str, String); 2] {
    [
        ("PERIODIC_JOBS_ENABLED", "true".to_owned()),
        ("FEEDBACK_PASS_INTERVAL_SECS", "1".to_owned()),
    ]
}

pub(super) fn fix() -> Vec<FileDiff> {
    vec![modified("src/app.rs", FIX)]
}

#[tokio::test]
async fn gitlab_award_emoji_replies_resolved_threads_and_a_fix_become_feedback() {
    let gitlab = FakeGitlab::start("glpat-feedback").await;
    let project = gitlab
        .add_project(
            &ProjectFixture::new("group/feedback")
                .mr(MrFixture::new(1).head(HEAD_1).file("src/app.rs", DIFF_1)),
        )
        .await;
    let ai = fake_ai(review_answer).await;
    let app = app_with_ai(&ai, &pass_every_second()).await;
    let config = create_gitlab_config(&app, &gitlab).await;
    super::sync_projects(&app, &config).await;

    let mut push = fixture("hostA", "merge_request.json");
    push["project"]["id"] = json!(project.id.parse::<u64>().unwrap());
    push["object_attributes"]["iid"] = json!(1);
    push["object_attributes"]["last_commit"]["id"] = json!(HEAD_1);
    let queued = deliver_a(&app, "Merge Request Hook", &push).await;
    let task = wait_for(&app, queued["taskId"].as_str().unwrap()).await;
    assert_eq!(task["status"], "completed", "{task}");
    let review = task["reviewId"].as_str().unwrap().to_owned();
    assert_eq!(acceptance(&app, &review).await, (Value::Null, Value::Null));

    let comments = gitlab.line_comment_ids(&project.id, 1);
    let find = |words: &str| {
        comments
            .iter()
            .find(|(_, body)| body.contains(words))
            .cloned()
            .unwrap()
    };
    let (unwrap_note, unwrap_body) = find("unwrap() panics");
    let (logging_note, _) = find("Consider logging");

    let award = gitlab
        .react_as(&project.id, unwrap_note, "thumbsup", "ana")
        .unwrap();
    let mut emoji = fixture("hostA", "emoji_note_merge_request.json");
    emoji["project"]["id"] = json!(project.id.parse::<u64>().unwrap());
    emoji["project_id"] = emoji["project"]["id"].clone();
    emoji["merge_request"]["iid"] = json!(1);
    emoji["note"]["id"] = json!(unwrap_note);
    emoji["note"]["note"] = json!(unwrap_body);
    emoji["object_attributes"]["awardable_id"] = json!(unwrap_note);
    emoji["user"]["username"] = json!("ana");
    // A 👍 by ana: GitLab's emoji hook names the note; the MR's threads are read
    // after the answer (the hook's text alone proves nothing).
    let answer = deliver_a(&app, "Emoji Hook", &emoji).await;
    assert_eq!(answer["status"], "ignored", "{answer}");
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .contains("read after this answer")
    );
    assert_eq!(
        eventually(&app, &review, &[("accepted", Some("ana"))]).await,
        [pair("accepted", Some("ana"))]
    );

    // bo answers the other comment "won't fix": the note hook says only that a
    // thread got a reply; the MR's threads are read after the answer.
    gitlab
        .reply_as(
            &project.id,
            logging_note,
            "Won't fix: it is logged already.",
            "bo",
        )
        .unwrap();
    let mut reply = fixture("hostA", "note_diff_merge_request.json");
    reply["project"]["id"] = json!(project.id.parse::<u64>().unwrap());
    reply["merge_request"]["iid"] = json!(1);
    reply["object_attributes"]["note"] = json!("Won't fix: it is logged already.");
    // A reply in a thread: its answer is queued (the task finds whether the
    // thread is reviewd's), and the MR's threads are read for feedback.
    let answer = deliver_a(&app, "Note Hook", &reply).await;
    assert_eq!(answer["status"], "queued", "{answer}");
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .starts_with("answer queued")
    );
    assert_eq!(
        eventually(
            &app,
            &review,
            &[("accepted", Some("ana")), ("rejected", Some("bo"))]
        )
        .await,
        [pair("accepted", Some("ana")), pair("rejected", Some("bo"))]
    );
    // cy resolves the first thread: GitLab sends no hook; the pass finds it.
    assert!(gitlab.resolve_as(&project.id, unwrap_note, Some("cy")));
    assert_eq!(
        eventually(
            &app,
            &review,
            &[
                ("accepted", Some("ana")),
                ("accepted", Some("cy")),
                ("rejected", Some("bo")),
            ]
        )
        .await,
        [
            pair("accepted", Some("ana")),
            pair("accepted", Some("cy")),
            pair("rejected", Some("bo")),
        ]
    );

    // The fix is pushed: the commented line is replaced.
    gitlab.add_compare(&project, HEAD_1, HEAD_2, &fix()).await;
    mount_gitlab_head(&gitlab, &project.id, HEAD_2, DIFF_2).await;
    push["object_attributes"]["action"] = json!("update");
    push["object_attributes"]["oldrev"] = json!(HEAD_1);
    push["object_attributes"]["last_commit"]["id"] = json!(HEAD_2);
    let queued = deliver_a(&app, "Merge Request Hook", &push).await;
    let task = wait_for(&app, queued["taskId"].as_str().unwrap()).await;
    assert_eq!(task["status"], "completed", "{task}");
    assert_eq!(
        feedback(&app, &review).await,
        [
            pair("accepted", Some("ana")),
            pair("accepted", Some("cy")),
            pair("implemented", None),
            pair("rejected", Some("bo")),
        ]
    );
    // Two comments judged: the fixed one helped, the refused one did not.
    assert_eq!(acceptance(&app, &review).await, (json!(0.5), json!(0.5)));

    // ana takes her 👍 back (revoke hook): her record goes.
    assert!(gitlab.unreact(&project.id, unwrap_note, award));
    emoji["event_type"] = json!("revoke");
    let answer = deliver_a(&app, "Emoji Hook", &emoji).await;
    assert_eq!(answer["status"], "ignored", "{answer}");
    assert_eq!(
        eventually(
            &app,
            &review,
            &[
                ("accepted", Some("cy")),
                ("implemented", None),
                ("rejected", Some("bo"))
            ]
        )
        .await,
        [
            pair("accepted", Some("cy")),
            pair("implemented", None),
            pair("rejected", Some("bo")),
        ]
    );
}

/// The MR at a new head (the stateful fake's answers are overridden).
async fn mount_gitlab_head(gitlab: &FakeGitlab, project_id: &str, head: &str, diff: &str) {
    let base = format!("/api/v4/projects/{project_id}/merge_requests/1");
    Mock::given(method("GET"))
        .and(path(base.clone()))
        .respond_with(ResponseTemplate::new(200).set_body_json(super::mr(head)))
        .with_priority(1)
        .mount(&gitlab.server)
        .await;
    Mock::given(method("GET"))
        .and(path(format!("{base}/diffs")))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!([super::file("src/app.rs", diff)]))
                .insert_header("x-next-page", ""),
        )
        .with_priority(1)
        .mount(&gitlab.server)
        .await;
}

#[tokio::test]
async fn github_reactions_replies_resolved_threads_and_a_fix_become_feedback() {
    let github = FakeGithub::start("ghp_feedback").await;
    let repo = github
        .add_project(
            &ProjectFixture::new("octo/feedback")
                .mr(MrFixture::new(2).head(HEAD_1).file("src/app.rs", DIFF_1)),
        )
        .await;
    let ai = fake_ai(review_answer).await;
    let app = app_with_ai(&ai, &pass_every_second()).await;
    let config = create_github_config(&app, &github).await;
    super::sync_projects(&app, &config).await;

    let queued = deliver_b(&app, "pull_request", &opened_pr(&repo, HEAD_1)).await;
    let task = wait_for(&app, queued["taskId"].as_str().unwrap()).await;
    assert_eq!(task["status"], "completed", "{task}");
    let review = task["reviewId"].as_str().unwrap().to_owned();

    let comments = github.review_comments(&repo.full_path, 2);
    let find = |words: &str| {
        comments
            .iter()
            .find(|(_, body)| body.contains(words))
            .cloned()
            .unwrap()
    };
    let (unwrap_comment, unwrap_body) = find("unwrap() panics");
    let (logging_comment, _) = find("Consider logging");

    // bo replies "false positive" to the second: the reply's hook has the thread read.
    let reply_id = github
        .reply_as(
            &repo.full_path,
            logging_comment,
            "False positive: run() logs.",
            "bo",
        )
        .unwrap();
    let mut reply = fixture("hostB", "pull_request_review_comment.reply.json");
    reply["repository"]["id"] = json!(repo.id.parse::<u64>().unwrap());
    reply["repository"]["full_name"] = json!(repo.full_path);
    reply["pull_request"]["number"] = json!(2);
    reply["comment"]["id"] = json!(reply_id);
    reply["comment"]["in_reply_to_id"] = json!(logging_comment);
    reply["comment"]["body"] = json!("False positive: run() logs.");
    let answer = deliver_b(&app, "pull_request_review_comment", &reply).await;
    assert_eq!(answer["status"], "queued", "{answer}");
    assert_eq!(
        eventually(&app, &review, &[("rejected", Some("bo"))]).await,
        [pair("rejected", Some("bo"))]
    );
    // cy resolves the first thread: GitHub's review-thread hook has the threads read.
    assert!(github.resolve_as(&repo.full_path, unwrap_comment, Some("cy")));
    let mut resolved = fixture("hostB", "pull_request_review_thread.resolved.json");
    resolved["repository"]["id"] = json!(repo.id.parse::<u64>().unwrap());
    resolved["pull_request"]["number"] = json!(2);
    resolved["sender"]["login"] = json!("cy");
    for comment in resolved["thread"]["comments"].as_array_mut().unwrap() {
        if comment["in_reply_to_id"].is_null() {
            comment["body"] = json!(unwrap_body);
        }
    }
    let answer = deliver_b(&app, "pull_request_review_thread", &resolved).await;
    assert_eq!(answer["status"], "ignored", "{answer}");
    assert_eq!(
        eventually(
            &app,
            &review,
            &[("accepted", Some("cy")), ("rejected", Some("bo"))]
        )
        .await,
        [pair("accepted", Some("cy")), pair("rejected", Some("bo"))]
    );
    // Reactions have no webhook on GitHub: the pass reads them. A 🎉 is no verdict.
    github
        .react_as(&repo.full_path, unwrap_comment, "+1", "ana")
        .unwrap();
    github
        .react_as(&repo.full_path, logging_comment, "hooray", "ana")
        .unwrap();
    github
        .react_as(&repo.full_path, logging_comment, "-1", "dee")
        .unwrap();
    assert_eq!(
        eventually(
            &app,
            &review,
            &[
                ("accepted", Some("ana")),
                ("accepted", Some("cy")),
                ("rejected", Some("bo")),
                ("rejected", Some("dee")),
            ]
        )
        .await,
        [
            pair("accepted", Some("ana")),
            pair("accepted", Some("cy")),
            pair("rejected", Some("bo")),
            pair("rejected", Some("dee")),
        ]
    );

    // The fix is pushed.
    github.add_compare(&repo, HEAD_1, HEAD_2, &fix()).await;
    mount_github_head(&github, &repo.full_path, HEAD_2, DIFF_2).await;
    let mut pushed = opened_pr(&repo, HEAD_2);
    pushed["action"] = json!("synchronize");
    let queued = deliver_b(&app, "pull_request", &pushed).await;
    let task = wait_for(&app, queued["taskId"].as_str().unwrap()).await;
    assert_eq!(task["status"], "completed", "{task}");
    assert!(
        feedback(&app, &review)
            .await
            .contains(&pair("implemented", None))
    );
    assert_eq!(acceptance(&app, &review).await, (json!(0.5), json!(0.5)));

    // The thread is reopened (hook): the resolution goes, the rest stays.
    let mut reopened = fixture("hostB", "pull_request_review_thread.unresolved.json");
    reopened["repository"]["id"] = json!(repo.id.parse::<u64>().unwrap());
    reopened["pull_request"]["number"] = json!(2);
    reopened["thread"] = resolved["thread"].clone();
    assert!(github.resolve_as(&repo.full_path, unwrap_comment, None));
    let answer = deliver_b(&app, "pull_request_review_thread", &reopened).await;
    assert_eq!(answer["status"], "ignored", "{answer}");
    assert_eq!(
        eventually(
            &app,
            &review,
            &[
                ("accepted", Some("ana")),
                ("implemented", None),
                ("rejected", Some("bo")),
                ("rejected", Some("dee"))
            ]
        )
        .await,
        [
            pair("accepted", Some("ana")),
            pair("implemented", None),
            pair("rejected", Some("bo")),
            pair("rejected", Some("dee")),
        ]
    );
}

/// The pull request at a new head (the stateful fake's answers are overridden).
pub(super) async fn mount_github_head(
    github: &FakeGithub,
    full_name: &str,
    head: &str,
    diff: &str,
) {
    let base = format!("/api/v3/repos/{full_name}/pulls/2");
    Mock::given(method("GET"))
        .and(path(base.clone()))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "number": 2, "title": "Feedback", "body": "", "state": "open", "merged_at": null,
            "html_url": format!("https://github.example.com/{full_name}/pull/2"),
            "head": { "ref": "fix", "sha": head }, "base": { "ref": "main", "sha": "b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0" },
            "user": { "login": "dev", "id": 51 }, "draft": false })))
        .with_priority(1)
        .mount(&github.server)
        .await;
    Mock::given(method("GET"))
        .and(path(format!("{base}/files")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!([
            { "filename": "src/app.rs", "status": "modified", "patch": diff.trim_end() }
        ])))
        .with_priority(1)
        .mount(&github.server)
        .await;
}
