//! The whole path: a real-shape webhook in, the fake AI's comments placed on the
//! right lines of the fake GitLab MR, the review finished; then a second push.
//!
//! This module holds the fakes and steps the cases share (and that other modules
//! borrow); each child is one topic of the pipeline.

mod budget;
mod context;
mod conversations;
mod failures;
mod feedback;
mod gate;
mod github;
mod github_app;
mod recovery;
mod repo_config;
mod rounds;
mod sarif;
mod suggestions;
mod templates;

use crate::helpers::{TestApp, create_gitlab_config, json};
use reqwest::StatusCode;
use reviewd_testkit::FakeGitlab;
use serde_json::{Value, json};
use std::time::Duration;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

pub(crate) const HEAD_1: &str = "da1560886d4f094c3e6c9ef40349f7d38b5d27d7";
const HEAD_2: &str = "2222222222222222222222222222222222222222";

pub(crate) fn fixture() -> Value {
    let file = format!(
        "{}/fixtures/webhooks/hostA/merge_request.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

/// The hostA webhook fixture for MR `iid` of the GitLab project `gitlab_id`, pushed
/// at `head`.
pub(crate) fn push(gitlab_id: &str, iid: i64, head: &str) -> Value {
    let mut hook = fixture();
    hook["project"]["id"] = json!(gitlab_id.parse::<u64>().unwrap());
    hook["object_attributes"]["iid"] = json!(iid);
    hook["object_attributes"]["last_commit"]["id"] = json!(head);
    hook
}

pub(crate) fn mr(head: &str) -> Value {
    json!({
        "id": 99, "iid": 1, "title": "Add the runner", "description": "Runs things.", "state": "opened",
        "web_url": "https://gitlab.example.com/group/svc-1/-/merge_requests/1", "source_branch": "runner", "target_branch": "main",
        "author": { "id": 51, "username": "dev" }, "sha": head, "draft": false,
        "diff_refs": { "base_sha": "base0", "start_sha": "base0", "head_sha": head },
    })
}

pub(crate) fn file(path: &str, diff: &str) -> Value {
    json!({ "old_path": path, "new_path": path, "new_file": false, "renamed_file": false, "deleted_file": false, "diff": diff })
}

pub(crate) const APP_DIFF_1: &str =
    "@@ -1,3 +1,4 @@\n fn main() {\n+    let x = foo().unwrap();\n     run();\n }\n";
const APP_DIFF_2: &str = "@@ -1,3 +1,6 @@\n fn main() {\n+    let x = foo().unwrap();\n     run();\n+    let y = bar();\n+    drop(y);\n }\n";

/// A MR whose head is `head`, with `files` in its diff.
pub(crate) async fn mount_mr(gitlab: &FakeGitlab, head: &str, files: Value, priority: u8) {
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/1/merge_requests/1"))
        .respond_with(ResponseTemplate::new(200).set_body_json(mr(head)))
        .with_priority(priority)
        .mount(&gitlab.server)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/1/merge_requests/1/diffs"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(files)
                .insert_header("x-next-page", ""),
        )
        .with_priority(priority)
        .mount(&gitlab.server)
        .await;
}

pub(crate) async fn mount_posting(gitlab: &FakeGitlab) {
    Mock::given(method("POST"))
        .and(path("/api/v4/projects/1/merge_requests/1/discussions"))
        .respond_with(|req: &Request| {
            let body = FakeGitlab::params(req);
            let id = format!("disc-{}", body["position"]["new_line"]);
            ResponseTemplate::new(201).set_body_json(json!({ "id": id, "notes": [{ "id": 1 }] }))
        })
        .mount(&gitlab.server)
        .await;
    Mock::given(method("POST"))
        .and(path("/api/v4/projects/1/merge_requests/1/notes"))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({ "id": 301 })))
        .mount(&gitlab.server)
        .await;
    Mock::given(method("PUT"))
        .and(path("/api/v4/projects/1/merge_requests/1/notes/301"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({ "id": 301 })))
        .mount(&gitlab.server)
        .await;
}

/// Any MR of project 1 answers like MR 1 (for tests queueing many MRs).
pub(crate) async fn mount_any_mr(gitlab: &FakeGitlab) {
    use wiremock::matchers::path_regex;
    Mock::given(method("GET"))
        .and(path_regex(r"^/api/v4/projects/1/merge_requests/\d+$"))
        .respond_with(ResponseTemplate::new(200).set_body_json(mr(HEAD_1)))
        .with_priority(10)
        .mount(&gitlab.server)
        .await;
    Mock::given(method("GET"))
        .and(path_regex(r"^/api/v4/projects/1/merge_requests/\d+/diffs$"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!([file("src/app.rs", APP_DIFF_1)]))
                .insert_header("x-next-page", ""),
        )
        .with_priority(10)
        .mount(&gitlab.server)
        .await;
}

/// A GitLab with project 1 and MR 1 at `HEAD_1` changing `src/app.rs`, accepting posts.
pub(crate) async fn gitlab_with_one_mr() -> FakeGitlab {
    let gitlab = FakeGitlab::start("glpat-pipeline").await;
    gitlab.with_projects(1, "svc").await;
    mount_posting(&gitlab).await;
    mount_mr(&gitlab, HEAD_1, json!([file("src/app.rs", APP_DIFF_1)]), 5).await;
    gitlab
}

/// A connection to the test Redis, for tests that look at (or break) the queue.
async fn redis() -> deadpool_redis::Connection {
    let pool =
        reviewd_queue_redis::connect(&reviewd_testkit::test_redis_url(), Duration::from_secs(5))
            .await
            .unwrap();
    pool.get().await.unwrap()
}

/// An OpenAI-compatible fake whose answer depends on the file in the prompt.
/// The fake AI provider, answering at once with `answer(prompt)`.
pub(crate) async fn fake_ai(answer: fn(&str) -> Value) -> MockServer {
    reviewd_testkit::fake_openai(std::time::Duration::ZERO, answer).await
}

pub(crate) fn review_answer(prompt: &str) -> Value {
    let mut comments = vec![
        json!({ "line": 2, "severity": "error", "message": "unwrap() panics when foo fails; return the error instead." }),
        json!({ "line": 3, "severity": "info", "message": "Consider logging before run()." }),
        json!({ "line": 99, "severity": "warning", "message": "A line that does not exist." }),
    ];
    if prompt.contains("let y = bar()") {
        comments.push(json!({ "line": 4, "severity": "warning", "message": "bar() result is dropped immediately." }));
    }
    json!({ "summary": "Adds the runner entry point.", "comments": comments })
}

pub(crate) async fn app_with_ai(ai: &MockServer, extra: &[(&str, String)]) -> TestApp {
    let mut vars = vec![
        ("REVIEW_WORKERS_ENABLED", "true".to_owned()),
        ("PROVIDERA_ENDPOINT", format!("{}/v1", ai.uri())),
        ("PROVIDERA_API_KEY", "sk-fake".to_owned()),
        ("PROVIDERA_MODEL", "fake-model".to_owned()),
    ];
    vars.extend(extra.iter().map(|(k, v)| (*k, v.clone())));
    TestApp::spawn_with(&vars).await
}

pub(crate) async fn setup_project(app: &TestApp, gitlab: &FakeGitlab) {
    let config = create_gitlab_config(app, gitlab).await;
    let root = app.root().await;
    json(
        root.post(
            "/api/projects/sync/platform",
            json!({ "platformConfigId": config }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let project =
        json(root.get("/api/projects").await, StatusCode::OK).await["data"]["items"][0]["id"]
            .as_str()
            .unwrap()
            .to_owned();
    json(
        root.patch(
            &format!("/api/projects/{project}"),
            json!({ "fileIgnorePatterns": ["*.lock"] }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
}

pub(crate) async fn send_webhook(app: &TestApp, body: &Value) -> String {
    let r = reqwest::Client::new()
        .post(app.url("/api/webhook/hostA"))
        .header("X-Gitlab-Token", "hook-secret-a")
        .json(body)
        .send()
        .await
        .unwrap();
    let body: Value = r.json().await.unwrap();
    body["data"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("no task: {body}"))
        .to_owned()
}

/// Polls the task until it is finished.
pub(crate) async fn wait_for(app: &TestApp, task_id: &str) -> Value {
    let root = app.root().await;
    let mut task = Value::Null;
    for _ in 0..300 {
        let url = format!("/api/reviews/manual/tasks/{task_id}");
        task = json(root.get(&url).await, StatusCode::OK).await["data"]["task"].clone();
        if matches!(task["status"].as_str(), Some("completed" | "failed")) {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("task {task_id} did not finish: {task}");
}

pub(crate) async fn posted(gitlab: &FakeGitlab, http_method: &str, suffix: &str) -> Vec<Value> {
    gitlab
        .requests()
        .await
        .into_iter()
        .filter(|r| r.method.as_str() == http_method && r.url.path().ends_with(suffix))
        .map(|r| FakeGitlab::params(&r))
        .collect()
}

/// GitHub's `pull_request` "opened" webhook (the fixture), signed with the hostB
/// config's secret, for `repo` at `head` when given (the fixture's own otherwise);
/// returns the queued task's id.
pub(crate) async fn send_pull_request(
    app: &TestApp,
    repo: Option<&reviewd_domain::ports::ProjectRef>,
    head: Option<&str>,
) -> String {
    let file = format!(
        "{}/fixtures/webhooks/hostB/pull_request.opened.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut hook: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    if let Some(repo) = repo {
        hook["repository"]["id"] = json!(repo.id.parse::<u64>().unwrap());
        hook["repository"]["full_name"] = json!(repo.full_path);
    }
    if let Some(head) = head {
        hook["pull_request"]["head"]["sha"] = json!(head);
    }
    let body = serde_json::to_vec(&hook).unwrap();
    let signature = format!(
        "sha256={}",
        reviewd_crypto::hmac_sha256_hex(b"hook-secret-b", &body)
    );
    let r: Value = reqwest::Client::new()
        .post(app.url("/api/webhook/hostB"))
        .header("X-GitHub-Event", "pull_request")
        .header("X-Hub-Signature-256", signature)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    r["data"]["taskId"]
        .as_str()
        .expect("a queued task")
        .to_owned()
}

/// Syncs the projects of platform config `config` (`POST /api/projects/sync/platform`).
pub(crate) async fn sync_projects(app: &TestApp, config: &str) {
    json(
        app.root()
            .await
            .post(
                "/api/projects/sync/platform",
                json!({ "platformConfigId": config }),
            )
            .await,
        StatusCode::OK,
    )
    .await;
}
