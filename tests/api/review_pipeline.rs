//! The whole path: a real-shape webhook in, the fake AI's comments placed on the
//! right lines of the fake GitLab MR, the review finished; then a second push.

use crate::helpers::{TestApp, create_host_a_config, json};
use reqwest::StatusCode;
use reviewd_testkit::FakeGitlab;
use serde_json::{Value, json};
use std::time::Duration;
use wiremock::matchers::{method, path, path_regex};
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
            let body: Value = serde_json::from_slice(&req.body).unwrap();
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
pub(crate) async fn fake_ai(answer: fn(&str) -> Value) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST")).and(path("/v1/chat/completions"))
        .respond_with(move |req: &Request| {
            let body: Value = serde_json::from_slice(&req.body).unwrap();
            let prompt = body["messages"][1]["content"].as_str().unwrap_or_default().to_owned();
            let content = answer(&prompt).to_string();
            ResponseTemplate::new(200).set_body_json(json!({
                "model": "fake-model", "choices": [{ "index": 0, "message": { "role": "assistant", "content": content }, "finish_reason": "stop" }],
                "usage": { "prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120 }
            }))
        })
        .mount(&server).await;
    server
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
    let config = create_host_a_config(app, gitlab).await;
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
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

#[tokio::test]
async fn a_webhook_leads_to_placed_comments_and_a_second_push_to_a_differential_round() {
    let gitlab = FakeGitlab::start("glpat-pipeline").await;
    gitlab.with_projects(1, "svc").await;
    mount_posting(&gitlab).await;
    mount_mr(
        &gitlab,
        HEAD_1,
        json!([
            file("src/app.rs", APP_DIFF_1),
            file("Cargo.lock", "@@ -1 +1 @@\n-a\n+b\n"),
            file("logo.png", "")
        ]),
        5,
    )
    .await;
    let ai = fake_ai(review_answer).await;
    let app = app_with_ai(&ai, &[]).await;
    setup_project(&app, &gitlab).await;

    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    assert_eq!(task["status"], "completed", "{task}");
    assert!(task["reviewId"].is_string());

    let discussions = posted(&gitlab, "POST", "/discussions").await;
    let mut lines: Vec<u64> = discussions
        .iter()
        .map(|d| d["position"]["new_line"].as_u64().unwrap())
        .collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        vec![2, 2],
        "line 3 is context: moved to the added line 2; line 99 is outside the diff and dropped"
    );
    assert!(
        discussions
            .iter()
            .all(|d| d["position"]["new_path"] == "src/app.rs"
                && d["position"]["head_sha"] == HEAD_1)
    );
    assert!(discussions.iter().any(|d| {
        d["body"]
            .as_str()
            .unwrap()
            .contains("**error**: unwrap() panics")
    }));
    let notes = posted(&gitlab, "POST", "/notes").await;
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0]["body"]
            .as_str()
            .unwrap()
            .contains("rating B (84/100)"),
        "{}",
        notes[0]["body"]
    );
    let ai_prompts: Vec<String> = ai
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| {
            serde_json::from_slice::<Value>(&r.body).unwrap()["messages"][1]["content"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        ai_prompts.len(),
        1,
        "Cargo.lock is ignored and logo.png has no text diff"
    );
    assert!(
        ai_prompts[0].contains("    2 +    let x = foo().unwrap();"),
        "new-side line numbers in the prompt"
    );

    // A second push: only what changed since HEAD_1 is reviewed, nothing is posted twice,
    // and the summary is edited in place.
    mount_mr(
        &gitlab,
        HEAD_2,
        json!([
            file("src/app.rs", APP_DIFF_2),
            file("Cargo.lock", "@@ -1 +1 @@\n-a\n+b\n")
        ]),
        1,
    )
    .await;
    Mock::given(method("GET")).and(path_regex("^/api/v4/projects/1/repository/compare$"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({ "diffs": [file("src/app.rs", "@@ -3,0 +4,2 @@\n+    let y = bar();\n+    drop(y);\n")] })))
        .mount(&gitlab.server).await;
    let mut push = fixture();
    push["object_attributes"]["action"] = json!("update");
    push["object_attributes"]["oldrev"] = json!(HEAD_1);
    push["object_attributes"]["last_commit"]["id"] = json!(HEAD_2);
    let second = wait_for(&app, &send_webhook(&app, &push).await).await;
    assert_eq!(second["status"], "completed");
    assert_eq!(
        second["reviewId"], task["reviewId"],
        "rounds accumulate on one review"
    );

    let discussions = posted(&gitlab, "POST", "/discussions").await;
    assert_eq!(
        discussions.len(),
        3,
        "only the new remark is posted in round 2"
    );
    assert_eq!(discussions[2]["position"]["new_line"], 4);
    assert_eq!(discussions[2]["position"]["head_sha"], HEAD_2);
    assert_eq!(
        posted(&gitlab, "POST", "/notes").await.len(),
        1,
        "no second summary comment"
    );
    let edits = posted(&gitlab, "PUT", "/notes/301").await;
    assert_eq!(edits.len(), 1);
    assert!(edits[0]["body"].as_str().unwrap().contains("Round 2"));
    let review_id = task["reviewId"].as_str().unwrap().to_owned();
    let root = app.root().await;
    let detail = json(
        root.get(&format!("/api/reviews/{review_id}")).await,
        StatusCode::OK,
    )
    .await;
    let review = &detail["data"]["review"];
    assert_eq!(
        (review["status"].clone(), review["roundNumber"].clone()),
        (json!("completed"), json!(2))
    );
    assert_eq!(review["headCommitSha"], HEAD_2);
    assert_eq!(review["commentCount"], 3);
    assert_eq!(review["triggeredBy"], "auto");
    assert_eq!(
        (review["aiProvider"].clone(), review["aiModel"].clone()),
        (json!("providerA"), json!("fake-model"))
    );
    let list = json(
        root.get("/api/reviews?status=completed").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(list["data"]["items"][0]["id"], review_id.as_str());
    assert_eq!(list["data"]["stats"]["completed"], 1);
    assert_eq!(list["meta"]["pagination"]["total"], 1);
    let comments = json(
        root.get(&format!("/api/reviews/{review_id}/comments?severity=error"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(comments["meta"]["pagination"]["total"], 1);
    assert_eq!(comments["data"]["items"][0]["hostADiscussionId"], "disc-2");
    assert_eq!(comments["data"]["items"][0]["lineNumber"], 2);
    let rounds = json(
        root.get(&format!("/api/reviews/{review_id}/rounds")).await,
        StatusCode::OK,
    )
    .await;
    let rounds = rounds["data"]["rounds"].as_array().unwrap().clone();
    assert_eq!(rounds.len(), 2);
    assert_eq!(
        (
            rounds[0]["isDifferential"].clone(),
            rounds[1]["isDifferential"].clone()
        ),
        (json!(false), json!(true))
    );
    let files = json(
        root.get(&format!("/api/reviews/{review_id}/files")).await,
        StatusCode::OK,
    )
    .await;
    let statuses: Vec<(String, String)> = files["data"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["filePath"].as_str().unwrap().to_owned(),
                f["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        vec![
            ("Cargo.lock".to_owned(), "skipped".to_owned()),
            ("src/app.rs".to_owned(), "completed".to_owned())
        ]
    );
    let progress = json(
        root.get(&format!("/api/reviews/{review_id}/files/progress"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        (
            progress["data"]["completed"].clone(),
            progress["data"]["total"].clone()
        ),
        (json!(2), json!(2))
    );
    let logs = json(
        root.get(&format!("/api/reviews/{review_id}/ai-logs?status=success"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(logs["meta"]["pagination"]["total"], 2, "one call per round");
    assert_eq!(logs["data"]["items"][0]["totalTokens"], 120);
    // Retrying a file re-asks the model; what was already said is not posted again.
    let app_file = files["data"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["filePath"] == "src/app.rs")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let before = posted(&gitlab, "POST", "/discussions").await.len();
    let retried = json(
        root.post(
            &format!("/api/reviews/{review_id}/files/{app_file}/retry"),
            json!({}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(retried["data"]["newComments"], 0);
    assert_eq!(retried["data"]["file"]["status"], "completed");
    assert_eq!(posted(&gitlab, "POST", "/discussions").await.len(), before);
    let viewer = app.user_with_role("viewer").await;
    crate::helpers::expect_error(
        viewer
            .post(
                &format!("/api/reviews/{review_id}/files/{app_file}/retry"),
                json!({}),
            )
            .await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    crate::helpers::expect_error(
        root.post(
            &format!(
                "/api/reviews/{review_id}/files/{}/retry",
                uuid::Uuid::new_v4()
            ),
            json!({}),
        )
        .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;

    crate::helpers::expect_error(
        root.get(&format!("/api/reviews/{}/comments", uuid::Uuid::new_v4()))
            .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    crate::helpers::expect_error(
        root.get("/api/reviews?status=done").await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUERY",
    )
    .await;
    crate::helpers::expect_error(
        root.get("/api/reviews?startDate=yesterday").await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUERY",
    )
    .await;
    let compare = gitlab
        .requests()
        .await
        .into_iter()
        .find(|r| r.url.path().ends_with("/repository/compare"))
        .unwrap();
    assert!(
        compare
            .url
            .query()
            .unwrap()
            .contains(&format!("from={HEAD_1}"))
            && compare
                .url
                .query()
                .unwrap()
                .contains(&format!("to={HEAD_2}"))
    );
}

#[tokio::test]
async fn garbage_from_the_provider_fails_the_review_with_logs_and_no_lost_task() {
    let gitlab = gitlab_with_one_mr().await;
    let ai = fake_ai(|_| json!("Looks good to me!")).await;
    let app = app_with_ai(&ai, &[]).await;
    setup_project(&app, &gitlab).await;

    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    assert_eq!(task["status"], "failed");
    assert!(
        task["errorMessage"]
            .as_str()
            .unwrap()
            .contains("failed to review"),
        "{task}"
    );
    assert_eq!(
        ai.received_requests().await.unwrap().len(),
        2,
        "an unusable answer is asked again once, then given up"
    );
    assert!(
        posted(&gitlab, "POST", "/discussions").await.is_empty(),
        "nothing posted from garbage"
    );
}

/// A provider failing in `response` every time: the task fails after its attempts,
/// every call is logged, nothing is lost or left hanging.
async fn failing_provider(
    response: ResponseTemplate,
    extra: &[(&str, String)],
) -> (Value, Vec<Request>, TestApp) {
    let gitlab = gitlab_with_one_mr().await;
    let ai = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(response)
        .mount(&ai)
        .await;
    let app = app_with_ai(&ai, extra).await;
    setup_project(&app, &gitlab).await;
    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    (task, ai.received_requests().await.unwrap(), app)
}

#[tokio::test]
async fn a_provider_that_keeps_failing_is_retried_a_bounded_number_of_times() {
    for response in [
        ResponseTemplate::new(503),
        ResponseTemplate::new(429).insert_header("retry-after", "0"),
    ] {
        let (task, calls, app) = failing_provider(response, &[]).await;
        assert_eq!(task["status"], "failed");
        assert_eq!(task["attempts"], 3, "three task attempts");
        assert_eq!(calls.len(), 9, "each attempt retried its call three times");
        let reviews = json(
            app.root().await.get("/api/reviews?status=failed").await,
            StatusCode::OK,
        )
        .await;
        let review_id = reviews["data"]["items"][0]["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let logs = json(
            app.root()
                .await
                .get(&format!("/api/reviews/{review_id}/ai-logs?status=failed"))
                .await,
            StatusCode::OK,
        )
        .await;
        assert!(
            logs["meta"]["pagination"]["total"].as_u64().unwrap() >= 1,
            "failed calls are logged"
        );
    }
}

#[tokio::test]
async fn a_provider_that_never_answers_times_out_and_fails() {
    let slow = ResponseTemplate::new(200).set_delay(Duration::from_secs(30));
    let (task, calls, _) = failing_provider(
        slow,
        &[
            ("OUTBOUND_TIMEOUT_SECS", "1".to_owned()),
            ("OUTBOUND_MAX_ATTEMPTS", "1".to_owned()),
        ],
    )
    .await;
    assert_eq!(task["status"], "failed");
    assert_eq!(
        calls.len(),
        3,
        "one call per attempt, each cut at the timeout"
    );
}

#[tokio::test]
async fn a_review_running_past_its_timeout_is_failed_and_acknowledged() {
    let slow = ResponseTemplate::new(200).set_delay(Duration::from_secs(30));
    let (task, _, app) =
        failing_provider(slow, &[("REVIEW_TIMEOUT_MINUTES", "0.02".to_owned())]).await;
    assert_eq!(task["status"], "failed");
    assert!(
        task["errorMessage"].as_str().unwrap().contains("timeout"),
        "{task}"
    );
    let reviews = json(
        app.root().await.get("/api/reviews?status=failed").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        reviews["meta"]["pagination"]["total"], 1,
        "the review is failed too"
    );
    let mut conn = redis().await;
    let left: u64 = deadpool_redis::redis::cmd("XLEN")
        .arg(format!("{}review-tasks", app.queue_prefix))
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(
        left, 0,
        "the message is acknowledged, not redelivered forever"
    );
}

#[tokio::test]
async fn a_task_held_by_a_dead_worker_is_finished_by_another() {
    let gitlab = gitlab_with_one_mr().await;
    let ai = fake_ai(review_answer).await;
    // The first replica queues but runs no workers; a "worker" then takes the task and dies.
    let first = TestApp::spawn().await;
    setup_project(&first, &gitlab).await;
    let task_id = send_webhook(&first, &fixture()).await;
    let mut conn = redis().await;
    let taken: Value = deadpool_redis::redis::cmd("XREADGROUP")
        .arg("GROUP")
        .arg("reviewd-workers")
        .arg("dies-mid-review")
        .arg("COUNT")
        .arg(1)
        .arg("STREAMS")
        .arg(format!("{}review-tasks", first.queue_prefix))
        .arg(">")
        .query_async::<deadpool_redis::redis::Value>(&mut conn)
        .await
        .map(|v| json!(format!("{v:?}")))
        .unwrap();
    assert!(
        taken.as_str().unwrap().contains(&task_id),
        "the dead worker holds the task"
    );

    // A second replica with workers reclaims it once it has been idle for a second.
    let second = TestApp::spawn_sharing(
        &first,
        &[
            ("REVIEW_WORKERS_ENABLED", "true".to_owned()),
            ("QUEUE_RECLAIM_IDLE_SECS", "1".to_owned()),
            ("PROVIDERA_ENDPOINT", format!("{}/v1", ai.uri())),
        ],
    )
    .await;
    let task = wait_for(&second, &task_id).await;
    assert_eq!(task["status"], "completed");
    assert_eq!(posted(&gitlab, "POST", "/discussions").await.len(), 2);
}

#[tokio::test]
async fn templates_frame_the_prompt_and_matching_rules_are_applied_and_recorded() {
    let gitlab = FakeGitlab::start("glpat-pipeline").await;
    gitlab.with_projects(1, "svc").await;
    mount_posting(&gitlab).await;
    mount_mr(
        &gitlab,
        HEAD_1,
        json!([
            file("src/app.rs", APP_DIFF_1),
            file("web/app.ts", "@@ -1 +1,2 @@\n a\n+b\n")
        ]),
        5,
    )
    .await;
    let ai = fake_ai(review_answer).await;
    let app = app_with_ai(&ai, &[]).await;
    setup_project(&app, &gitlab).await;
    let root = app.root().await;
    json(root.post("/api/reviews/templates", json!({ "name": "Security first", "content": "You audit code for security flaws.", "isDefault": true })).await, StatusCode::OK).await;
    let rule = json(
        root.post("/api/reviews/rules", json!({ "ruleName": "Rust errors", "instructions": "Never unwrap in library code.", "fileTypePatterns": ["rs"], "priority": 10 })).await,
        StatusCode::OK,
    )
    .await["data"]["rule"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    json(
        root.post(
            "/api/reviews/rules",
            json!({ "ruleName": "Disabled", "instructions": "Ignore me.", "enabled": false }),
        )
        .await,
        StatusCode::OK,
    )
    .await;

    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    assert_eq!(task["status"], "completed", "{task}");
    let prompts: Vec<Value> = ai
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    assert_eq!(prompts.len(), 2);
    for p in &prompts {
        assert!(
            p["messages"][0]["content"]
                .as_str()
                .unwrap()
                .starts_with("You audit code for security flaws.")
        );
        assert!(
            !p["messages"][1]["content"]
                .as_str()
                .unwrap()
                .contains("Ignore me.")
        );
    }
    let rust = prompts
        .iter()
        .find(|p| {
            p["messages"][1]["content"]
                .as_str()
                .unwrap()
                .contains("src/app.rs")
        })
        .unwrap();
    let ts = prompts
        .iter()
        .find(|p| {
            p["messages"][1]["content"]
                .as_str()
                .unwrap()
                .contains("web/app.ts")
        })
        .unwrap();
    assert!(
        rust["messages"][1]["content"]
            .as_str()
            .unwrap()
            .contains("- Rust errors: Never unwrap in library code.")
    );
    assert!(
        !ts["messages"][1]["content"]
            .as_str()
            .unwrap()
            .contains("Rust errors"),
        "the rule targets .rs files only"
    );
    let review = json(
        root.get(&format!(
            "/api/reviews/{}",
            task["reviewId"].as_str().unwrap()
        ))
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(review["data"]["review"]["appliedRuleIds"], json!([rule]));

    let listed = json(root.get("/api/reviews/rules/all").await, StatusCode::OK).await;
    assert_eq!(
        listed["data"]["rules"][0]["ruleName"], "Rust errors",
        "highest priority first"
    );
    let templates = json(root.get("/api/reviews/templates/all").await, StatusCode::OK).await;
    assert_eq!(templates["data"]["templates"][0]["isDefault"], true);
}

#[tokio::test]
async fn templates_and_rules_are_admin_only_and_validated() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let maintainer = app.user_with_role("maintainer").await;
    crate::helpers::expect_error(
        maintainer
            .post(
                "/api/reviews/rules",
                json!({ "ruleName": "x", "instructions": "y" }),
            )
            .await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    let bad = crate::helpers::expect_error(
        root.post(
            "/api/reviews/rules",
            json!({ "ruleName": "", "instructions": "y", "filePathPatterns": ["src/[[bad"] }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert!(
        bad["error"]["details"]["fields"]["ruleName"].is_array()
            && bad["error"]["details"]["fields"]["filePathPatterns"].is_array()
    );
    crate::helpers::expect_error(
        root.post("/api/reviews/templates", json!({ "name": "t" }))
            .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    let first = json(
        root.post(
            "/api/reviews/templates",
            json!({ "name": "A", "content": "a", "isDefault": true }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    json(
        root.post(
            "/api/reviews/templates",
            json!({ "name": "B", "content": "b", "isDefault": true }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let listed = json(root.get("/api/reviews/templates/all").await, StatusCode::OK).await;
    let defaults: Vec<_> = listed["data"]["templates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["isDefault"] == true)
        .map(|t| t["name"].clone())
        .collect();
    assert_eq!(defaults, vec![json!("B")], "one global default");
    let id = first["data"]["template"]["id"].as_str().unwrap();
    let renamed = json(
        root.patch(
            &format!("/api/reviews/templates/{id}"),
            json!({ "name": "A2" }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(renamed["data"]["template"]["name"], "A2");
    crate::helpers::expect_error(
        root.patch(
            &format!("/api/reviews/rules/{}", uuid::Uuid::new_v4()),
            json!({ "priority": 1 }),
        )
        .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
}

#[tokio::test]
async fn a_signed_github_pull_request_gets_one_review_with_all_line_comments() {
    let github = reviewd_testkit::FakeGithub::start("ghp_pipeline").await;
    Mock::given(method("GET"))
        .and(path("/api/v3/user/repos"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!([
            reviewd_testkit::github_repo(186_853_002, "Codertocat/Hello-World")
        ])))
        .mount(&github.server)
        .await;
    let head = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";
    Mock::given(method("GET")).and(path("/api/v3/repos/Codertocat/Hello-World/pulls/2"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "number": 2, "title": "Update the README with new information.", "body": "", "state": "open", "merged_at": null,
            "html_url": "https://github.com/Codertocat/Hello-World/pull/2",
            "head": { "ref": "changes", "sha": head }, "base": { "ref": "master", "sha": "f95f852bd8fca8fcc58a9a2d6c842781e32a215e" },
            "user": { "login": "Codertocat", "id": 21_031_067 }, "draft": false })))
        .mount(&github.server).await;
    Mock::given(method("GET")).and(path("/api/v3/repos/Codertocat/Hello-World/pulls/2/files"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!([{ "filename": "src/app.rs", "status": "modified", "patch": APP_DIFF_1.trim_end() }])))
        .mount(&github.server).await;
    Mock::given(method("POST"))
        .and(path("/api/v3/repos/Codertocat/Hello-World/pulls/2/reviews"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(json!({ "id": 80, "state": "COMMENTED" })),
        )
        .mount(&github.server)
        .await;
    Mock::given(method("POST"))
        .and(path(
            "/api/v3/repos/Codertocat/Hello-World/issues/2/comments",
        ))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({ "id": 555 })))
        .mount(&github.server)
        .await;
    let ai = fake_ai(review_answer).await;
    let app = app_with_ai(&ai, &[]).await;
    let config = crate::helpers::create_host_b_config(&app, &github).await;
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

    let file = format!(
        "{}/fixtures/webhooks/hostB/pull_request.opened.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let body = std::fs::read(file).unwrap();
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
    let task = wait_for(&app, r["data"]["taskId"].as_str().unwrap()).await;
    assert_eq!(task["status"], "completed", "{task}");

    let reviews: Vec<Value> = github
        .requests()
        .await
        .into_iter()
        .filter(|r| r.method.as_str() == "POST" && r.url.path().ends_with("/pulls/2/reviews"))
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    assert_eq!(reviews.len(), 1, "one review holds every line comment");
    assert_eq!(reviews[0]["commit_id"], head);
    let lines: Vec<u64> = reviews[0]["comments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert!(
        lines.iter().all(|l| *l == 2),
        "comments land on the added line"
    );
    assert!(
        reviews[0]["comments"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["side"] == "RIGHT" && c["path"] == "src/app.rs")
    );
    let summary = github
        .requests()
        .await
        .into_iter()
        .find(|r| r.url.path().ends_with("/issues/2/comments"))
        .expect("summary comment");
    let summary: Value = serde_json::from_slice(&summary.body).unwrap();
    assert!(summary["body"].as_str().unwrap().contains("rating B"));
}

#[tokio::test]
async fn a_task_recorded_but_never_queued_is_swept_into_the_queue() {
    let gitlab = gitlab_with_one_mr().await;
    let ai = fake_ai(review_answer).await;
    let first = TestApp::spawn().await;
    setup_project(&first, &gitlab).await;
    let task_id = send_webhook(&first, &fixture()).await;
    // As if the process died between recording the task and queueing it: no message.
    let mut conn = redis().await;
    let _: () = deadpool_redis::redis::cmd("DEL")
        .arg(format!("{}review-tasks", first.queue_prefix))
        .query_async(&mut conn)
        .await
        .unwrap();
    let sql = format!(
        "UPDATE review_tasks SET stream_message_id = NULL, created_at = now() - interval '1 minute' WHERE id = '{task_id}'"
    );
    let out = std::process::Command::new("psql")
        .arg(&first.database_url)
        .arg("-qc")
        .arg(&sql)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let second = TestApp::spawn_sharing(
        &first,
        &[
            ("REVIEW_WORKERS_ENABLED", "true".to_owned()),
            ("QUEUE_ORPHAN_AGE_SECS", "2".to_owned()),
            ("PROVIDERA_ENDPOINT", format!("{}/v1", ai.uri())),
        ],
    )
    .await;
    let task = wait_for(&second, &task_id).await;
    assert_eq!(task["status"], "completed");
}
