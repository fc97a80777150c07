//! The point of it all: a project bound to a configuration has its reviews sent
//! there, with that configuration's model and key; others follow the default, and
//! without one `PROVIDERA_*`. Runners are told the same.

use super::{bind, config, create};
use crate::helpers::{TestApp, json};
use crate::review_pipeline::{
    APP_DIFF_1, HEAD_1, app_with_ai, fake_ai, file, fixture, gitlab_with_one_mr, mount_mr,
    review_answer, send_webhook, setup_project, wait_for,
};
use reqwest::StatusCode;
use reviewd_testkit::FakeGitlab;
use serde_json::{Value, json};
use wiremock::MockServer;

/// The completion requests a fake AI server received: (model, authorization).
async fn completions(server: &MockServer) -> Vec<(String, String)> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| r.url.path() == "/v1/chat/completions")
        .map(|r| {
            let body: Value = serde_json::from_slice(&r.body).unwrap();
            let auth = r
                .headers
                .get("authorization")
                .map_or("", |v| v.to_str().unwrap());
            (body["model"].as_str().unwrap().to_owned(), auth.to_owned())
        })
        .collect()
}

/// Pushes MR 1 to `head` (the GitLab fake answers with it from now on, `priority`
/// below the previous push's) and waits for the review task.
async fn push(app: &TestApp, gitlab: &FakeGitlab, head: &str, priority: u8) -> Value {
    mount_mr(
        gitlab,
        head,
        json!([file("src/app.rs", APP_DIFF_1)]),
        priority,
    )
    .await;
    let mut body = fixture();
    body["object_attributes"]["action"] = json!("update");
    body["object_attributes"]["last_commit"]["id"] = json!(head);
    let task = wait_for(app, &send_webhook(app, &body).await).await;
    assert_eq!(task["status"], "completed", "{task}");
    task
}

#[tokio::test]
async fn a_project_bound_to_the_second_configuration_sends_its_calls_there_with_its_model() {
    let gitlab = gitlab_with_one_mr().await;
    let (server_a, server_b) = (fake_ai(review_answer).await, fake_ai(review_answer).await);
    // Server A is PROVIDERA_* (model `fake-model`, key `sk-fake`).
    let app = app_with_ai(&server_a, &[]).await;
    setup_project(&app, &gitlab).await;
    let root = app.root().await;
    let b = create(
        &root,
        config("B", &format!("{}/v1", server_b.uri()), "sk-b", "model-b"),
    )
    .await;
    let b_id = b["id"].as_str().unwrap().to_owned();
    let project = app.sql("SELECT id FROM projects LIMIT 1");
    bind(&root, &project, json!(b_id)).await;
    let resolved = json(
        root.get(&format!("/api/projects/{project}/config")).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(resolved["data"]["config"]["aiConfigId"], b_id.as_str());

    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    assert_eq!(task["status"], "completed", "{task}");
    let to_b = completions(&server_b).await;
    assert!(!to_b.is_empty(), "B reviewed the file");
    assert!(
        to_b.iter()
            .all(|(model, auth)| model == "model-b" && auth == "Bearer sk-b"),
        "{to_b:?}"
    );
    assert!(
        completions(&server_a).await.is_empty(),
        "A received no call"
    );
    let review_id = task["reviewId"].as_str().unwrap();
    let review = json(
        root.get(&format!("/api/reviews/{review_id}")).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        (
            review["data"]["review"]["aiProvider"].clone(),
            review["data"]["review"]["aiModel"].clone()
        ),
        (json!("B"), json!("model-b"))
    );
    let logs = json(
        root.get(&format!("/api/reviews/{review_id}/ai-logs")).await,
        StatusCode::OK,
    )
    .await;
    let logged = logs["data"]["items"].as_array().unwrap();
    assert!(!logged.is_empty());
    assert!(
        logged
            .iter()
            .all(|l| l["provider"] == "B" && l["model"] == "model-b"),
        "{logs}"
    );

    // Unbound while B is the default: the project inherits B.
    bind(&root, &project, Value::Null).await;
    json(
        root.post(&format!("/api/ai-configs/{b_id}/default"), json!({}))
            .await,
        StatusCode::OK,
    )
    .await;
    let before = completions(&server_b).await.len();
    push(&app, &gitlab, "3333333333333333333333333333333333333333", 4).await;
    assert!(
        completions(&server_b).await.len() > before,
        "the default B reviewed it"
    );
    assert!(completions(&server_a).await.is_empty());

    // No stored default any more: back to PROVIDERA_* (server A).
    json(
        root.patch(
            &format!("/api/ai-configs/{b_id}"),
            json!({ "isDefault": false }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let before = completions(&server_b).await.len();
    push(&app, &gitlab, "4444444444444444444444444444444444444444", 3).await;
    assert_eq!(completions(&server_b).await.len(), before);
    let to_a = completions(&server_a).await;
    assert!(!to_a.is_empty());
    assert!(
        to_a.iter()
            .all(|(model, auth)| model == "fake-model" && auth == "Bearer sk-fake"),
        "{to_a:?}"
    );
}

#[tokio::test]
async fn a_runner_claiming_a_task_of_a_bound_project_is_given_that_configuration() {
    let gitlab = gitlab_with_one_mr().await;
    let app =
        TestApp::spawn_with(&[("PROVIDERA_ENDPOINT", "http://ai.invalid/v1".to_owned())]).await;
    setup_project(&app, &gitlab).await;
    let root = app.root().await;
    let b = create(
        &root,
        json!({ "name": "B", "endpoint": "https://ai-b.example.com/v1", "apiKey": "sk-b",
                "model": "model-b", "timeoutSecs": 45, "maxConcurrency": 2 }),
    )
    .await;
    let project = app.sql("SELECT id FROM projects LIMIT 1");
    bind(&root, &project, b["id"].clone()).await;
    send_webhook(&app, &fixture()).await;
    let key = crate::runners::api_key(&app).await;
    crate::runners::register(&app, &key, "r1", 2, "").await;
    let claimed = json(
        app.with_api_key(&key)
            .get("/api/runners/tasks/pending?runnerId=r1&limit=1")
            .await,
        StatusCode::OK,
    )
    .await;
    let ai = &claimed["data"][0]["ai"];
    assert_eq!(
        (
            ai["provider"].clone(),
            ai["endpoint"].clone(),
            ai["apiKey"].clone(),
            ai["model"].clone(),
            ai["timeoutSecs"].clone(),
            ai["maxConcurrency"].clone()
        ),
        (
            json!("B"),
            json!("https://ai-b.example.com/v1"),
            json!("sk-b"),
            json!("model-b"),
            json!(45),
            json!(2)
        ),
        "{claimed}"
    );
    assert_eq!(claimed["data"][0]["commitSha"], HEAD_1);
}
