//! The reviewer's context end to end, on the stateful fake GitLab and GitHub:
//! the prompt of a changed file carries the function it sits in, the definition
//! (in another file) of what its new line calls and the team's guidance, read
//! through the platform's API (one archive for the index); secrets never reach
//! the model; the review's files, rounds and tokens say what was sent; the
//! summary note of an MR of several files is written by the model for the MR,
//! a one-file MR's is the file's own.

use super::{app_with_ai, fake_ai, wait_for};
use crate::helpers::{TestApp, create_github_config, create_gitlab_config, json};
use reqwest::StatusCode;
use reviewd_testkit::contract::hosting::FakeServer;
use reviewd_testkit::fakes::hosting::{MrFixture, Posted, ProjectFixture};
use reviewd_testkit::{FakeGithub, FakeGitlab, SUMMARY, file_prompts, is_summary_call, prompt_of};
use serde_json::{Value, json};
use wiremock::MockServer;

const HEAD: &str = "c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0";
const BASE: &str = "ba5eba5eba5eba5eba5eba5eba5eba5eba5eba5e";

const USERS: &str = "\
import db


def find_user(user_id):
    \"\"\"The user, or None when there is no such user.\"\"\"
    row = db.get(\"users\", user_id)
    if row is None:
        return None
    return row
";

fn orders(line: &str) -> String {
    let mut text =
        String::from("from app.users import find_user\n\n\ndef summary(order):\n    lines = []\n");
    for i in 0..12 {
        text.push_str(&format!("    lines.append(\"step {i}\")\n"));
    }
    text.push_str(line);
    text.push_str("    return \"\\n\".join(lines)\n");
    text
}

/// The new line is 18 (after the import, two blank lines, the signature, the
/// list and twelve steps).
const ADDED: &str = "    lines.append(find_user(order.owner_id).email + signature())\n";
const DIFF: &str = "@@ -15,4 +15,5 @@ def summary(order):\n     lines.append(\"step 9\")\n     lines.append(\"step 10\")\n     lines.append(\"step 11\")\n+    lines.append(find_user(order.owner_id).email + signature())\n     return \"\\n\".join(lines)\n";

const AGENTS: &str =
    "# Agents and reviewers\n\nEvery lookup result is checked for None before use.\n";
const ENV: &str = "DB_PASSWORD=hunter2-very-secret\n";
/// A definition the new line uses, holding a token: quoted, the token masked.
const SETTINGS: &str =
    "def signature():\n    key = \"ghp_0123456789abcdefghijABCDEFGHIJ0123\"\n    return key[:4]\n";

fn mr(iid: i64) -> MrFixture {
    let head = orders(ADDED);
    let base = orders("");
    MrFixture::new(iid)
        .head(HEAD)
        .base(BASE)
        .title("Show the owner's email on the order summary")
        .file("app/orders.py", DIFF)
        .file(".env", "@@ -0,0 +1 @@\n+DB_PASSWORD=hunter2-very-secret\n")
        .repo_file("app/orders.py", &head)
        .repo_file("app/users.py", USERS)
        .repo_file("app/settings.py", SETTINGS)
        .repo_file("AGENTS.md", AGENTS)
        .repo_file(".env", ENV)
        .base_file("app/orders.py", &base)
        .base_file("app/users.py", USERS)
}

fn answer(prompt: &str) -> Value {
    let comments = if prompt.contains("return None")
        && prompt.contains("File under review: app/orders.py")
    {
        vec![
            json!({ "line": 18, "severity": "error", "message": "find_user returns None for an unknown id.", "suggestion": null }),
        ]
    } else {
        vec![]
    };
    json!({ "summary": "Adds the owner's email.", "comments": comments })
}

async fn everything_sent(ai: &MockServer) -> String {
    ai.received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| String::from_utf8_lossy(&r.body).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// What the API says the review read and sent.
async fn review_of(app: &TestApp, task: &Value) -> (Value, Value, Value) {
    let root = app.root().await;
    let id = task["reviewId"].as_str().expect("a review");
    let detail = json(
        root.get(&format!("/api/reviews/{id}")).await,
        StatusCode::OK,
    )
    .await;
    let files = json(
        root.get(&format!("/api/reviews/{id}/files")).await,
        StatusCode::OK,
    )
    .await;
    let rounds = json(
        root.get(&format!("/api/reviews/{id}/rounds")).await,
        StatusCode::OK,
    )
    .await;
    (
        detail["data"]["review"].clone(),
        files["data"]["files"].clone(),
        rounds["data"]["rounds"][0].clone(),
    )
}

async fn check_review(app: &TestApp, ai: &MockServer, task: &Value, source: &str) {
    assert_eq!(task["status"], "completed", "{task}");
    let prompts = file_prompts(ai).await;
    assert_eq!(prompts.len(), 1, "app/orders.py alone: .env is never sent");
    let prompt = &prompts[0];
    assert!(
        prompt.contains("    4 def summary(order):"),
        "the function the hunk sits in, 14 lines above it"
    );
    assert!(
        prompt.contains("[definition] app/users.py lines 4-9 `find_user`"),
        "the definition of what the new line calls, from an unchanged file: {prompt}"
    );
    assert!(prompt.contains("        return None"));
    assert!(
        prompt.contains("[definition] app/settings.py lines 1-3 `signature`")
            && prompt.contains("key = \"[secret masked by reviewd]\""),
        "a definition holding a token is quoted with the token masked"
    );
    assert!(prompt.contains("Every lookup result is checked for None before use."));
    assert!(prompt.contains("- app/orders.py (modified, +1 -0): function summary"));
    let sent = everything_sent(ai).await;
    assert!(
        !sent.contains("hunter2"),
        "the .env file never reaches the model"
    );
    assert!(
        !sent.contains("ghp_0123456789"),
        "a token never reaches the model"
    );

    let (detail, files, round) = review_of(app, task).await;
    let orders = files
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["filePath"] == "app/orders.py")
        .unwrap();
    let pieces = orders["context"]["pieces"].as_array().unwrap();
    assert!(
        pieces.iter().any(|p| p["kind"] == "definition"
            && p["path"] == "app/users.py"
            && p["symbol"] == "find_user"
            && p["startLine"] == 4),
        "{pieces:?}"
    );
    assert!(
        pieces
            .iter()
            .any(|p| p["kind"] == "guidance" && p["path"] == "AGENTS.md")
    );
    let env = files
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["filePath"] == ".env")
        .unwrap();
    assert_eq!(env["status"], "skipped");
    assert_eq!(
        env["promptSummary"],
        "a secret file (keys, credentials): never sent to a model"
    );
    assert_eq!(round["context"]["source"], source);
    assert_eq!(round["context"]["guidance"], json!(["AGENTS.md"]));
    assert!(round["context"]["indexedFiles"].as_u64().unwrap() >= 3);
    assert!(round["context"]["calls"].as_u64().unwrap() >= 1);
    assert!(round["context"]["bytes"].as_u64().unwrap() > 0);
    assert!(detail["tokens"]["prompt"].as_i64().unwrap() > 0, "{detail}");
    assert_eq!(
        detail["summary"], "Adds the owner's email.",
        "one reviewed file: its own summary is the MR's, without a second call"
    );
    let calls = ai.received_requests().await.unwrap();
    assert!(!calls.iter().any(is_summary_call), "no summary call");
}

#[tokio::test]
async fn on_gitlab_the_prompt_carries_the_code_around_the_change_and_no_secret() {
    let gitlab = FakeGitlab::start("glpat-context").await;
    let project = gitlab
        .add_project(&ProjectFixture::new("group/shop").mr(mr(1)))
        .await;
    let ai = fake_ai(answer).await;
    let app = app_with_ai(&ai, &[]).await;
    let config = create_gitlab_config(&app, &gitlab).await;
    super::sync_projects(&app, &config).await;

    let hook = super::push(&project.id, 1, HEAD);
    let task = wait_for(&app, &super::send_webhook(&app, &hook).await).await;
    check_review(&app, &ai, &task, "hostA API").await;

    let posted = gitlab.posted(&project, 1);
    assert!(
        posted
            .iter()
            .any(|p| matches!(p, Posted::Inline { comment, .. } if comment.line == 18)),
        "the finding the context made possible is posted on the added line: {posted:?}"
    );
    let note = posted
        .iter()
        .find_map(|p| match p {
            Posted::Comment { body, .. } if body.contains("### reviewd: rating") => Some(body),
            _ => None,
        })
        .unwrap();
    assert!(
        note.contains("| `app/orders.py` | Adds the owner's email. |"),
        "{note}"
    );
}

#[tokio::test]
async fn an_mr_of_several_files_gets_a_summary_written_for_it_after_the_shared_part() {
    let gitlab = FakeGitlab::start("glpat-summary").await;
    let users_diff = "@@ -4,3 +4,4 @@\n def find_user(user_id):\n+    # Looked up by primary key.\n     \"\"\"The user, or None when there is no such user.\"\"\"\n";
    let fixture = mr(3).file("app/users.py", users_diff);
    let project = gitlab
        .add_project(&ProjectFixture::new("group/shop").mr(fixture))
        .await;
    let ai = fake_ai(answer).await;
    let app = app_with_ai(&ai, &[]).await;
    let config = create_gitlab_config(&app, &gitlab).await;
    super::sync_projects(&app, &config).await;

    let task = wait_for(
        &app,
        &super::send_webhook(&app, &super::push(&project.id, 3, HEAD)).await,
    )
    .await;
    assert_eq!(task["status"], "completed", "{task}");
    let calls = ai.received_requests().await.unwrap();
    let summaries: Vec<_> = calls.iter().filter(|r| is_summary_call(r)).collect();
    assert_eq!(summaries.len(), 1, "one summary call for the round");
    let body: Value = serde_json::from_slice(&summaries[0].body).unwrap();
    let messages = body["messages"].as_array().unwrap();
    let first_file: Value =
        serde_json::from_slice(&calls.iter().find(|r| !is_summary_call(r)).unwrap().body).unwrap();
    assert_eq!(
        messages[1], first_file["messages"][1],
        "the summary call starts with the files' shared part, which the provider caches"
    );
    let asked = prompt_of(summaries[0]);
    assert!(
        asked.contains("Reviewed file app/orders.py:")
            && asked.contains("Reviewed file app/users.py:")
            && asked.contains("find_user returns None for an unknown id."),
        "{asked}"
    );
    assert!(
        !asked.contains("Reviewed file .env:"),
        "a skipped secret file is not summarised"
    );

    let (detail, _, _) = review_of(&app, &task).await;
    assert_eq!(
        detail["summary"], SUMMARY,
        "the model's summary, for the MR"
    );
    let note = gitlab
        .posted(&project, 3)
        .into_iter()
        .find_map(|p| match p {
            Posted::Comment { body, .. } if body.contains("### reviewd: rating") => Some(body),
            _ => None,
        })
        .unwrap();
    assert!(
        note.contains(SUMMARY)
            && note.contains("| `app/orders.py` | changed |")
            && note.contains("| `app/users.py` | changed |"),
        "{note}"
    );
}

#[tokio::test]
async fn on_github_the_prompt_carries_the_same_context() {
    let github = FakeGithub::start("ghp-context").await;
    let project = github
        .add_project(&ProjectFixture::new("acme/shop").mr(mr(2)))
        .await;
    let ai = fake_ai(answer).await;
    let app = app_with_ai(&ai, &[]).await;
    let config = create_github_config(&app, &github).await;
    super::sync_projects(&app, &config).await;

    let task = super::send_pull_request(&app, Some(&project), Some(HEAD)).await;
    let task = wait_for(&app, &task).await;
    check_review(&app, &ai, &task, "hostB API").await;
    let archive = github
        .requests()
        .await
        .into_iter()
        .filter(|r| r.url.path().contains("/tarball/") || r.url.path().starts_with("/_codeload/"))
        .count();
    assert_eq!(archive, 2, "one tarball request and its codeload download");
}
