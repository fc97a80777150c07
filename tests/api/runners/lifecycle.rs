//! A runner registers, claims a task, reports, and its result is posted once.

use super::{api_key, register, result_body, runner_world};
use crate::helpers::{expect_error, json};
use crate::review_pipeline::{HEAD_1, fixture, posted, send_webhook};
use reqwest::StatusCode;
use serde_json::{Value, json};

#[tokio::test]
async fn a_runner_registers_claims_reports_and_its_result_is_posted_once() {
    let (app, gitlab) = runner_world(&[("PROVIDERA_API_KEY", "sk-runner".to_owned())]).await;
    let task_id = send_webhook(&app, &fixture()).await;
    let key = api_key(&app).await;
    let runner = app.with_api_key(&key);

    // Registration is by headers and needs an API key, not a session.
    let r = reqwest::Client::new()
        .post(app.url("/api/runners/register"))
        .header("x-api-key", &key)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "MISSING_HEADER").await;
    expect_error(
        app.root()
            .await
            .post("/api/runners/register", Value::Null)
            .await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    let registered = register(&app, &key, "r1", 2, "linux, gpu,linux").await;
    assert_eq!(registered["id"], "r1");
    assert_eq!(registered["name"], "r1", "the name defaults to the id");
    assert_eq!(registered["status"], "online");
    assert_eq!(registered["maxConcurrentJobs"], 2);
    assert_eq!(registered["tags"], json!(["gpu", "linux"]));
    let again = register(&app, &key, "r1", 3, "linux").await;
    assert_eq!(
        again["registeredAt"], registered["registeredAt"],
        "an upsert"
    );
    assert_eq!(again["maxConcurrentJobs"], 3);

    let list = json(app.root().await.get("/api/runners").await, StatusCode::OK).await;
    assert_eq!(
        list["data"][0]["id"], "r1",
        "the record directly under data"
    );
    expect_error(
        runner.get("/api/runners/nope").await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    expect_error(
        runner
            .post(
                "/api/runners/r1/heartbeat",
                json!({ "status": "sleeping", "currentJobs": 0 }),
            )
            .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    json(
        runner
            .post(
                "/api/runners/r1/heartbeat",
                json!({ "status": "online", "currentJobs": 0 }),
            )
            .await,
        StatusCode::OK,
    )
    .await;

    expect_error(
        runner.get("/api/runners/tasks/pending").await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUERY",
    )
    .await;
    expect_error(
        runner
            .get("/api/runners/tasks/pending?runnerId=ghost")
            .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    let claimed = json(
        runner
            .get("/api/runners/tasks/pending?runnerId=r1&limit=5")
            .await,
        StatusCode::OK,
    )
    .await;
    let tasks = claimed["data"].as_array().unwrap();
    assert_eq!(tasks.len(), 1, "{claimed}");
    let task = &tasks[0];
    assert_eq!(task["id"], task_id.as_str());
    assert_eq!(task["commitSha"], HEAD_1);
    assert_eq!(task["sourceBranch"], "runner");
    assert_eq!(task["files"][0]["filePath"], "src/app.rs");
    assert!(task["repositoryUrl"].as_str().unwrap().ends_with(".git"));
    assert_eq!(task["cloneCredentials"]["username"], "oauth2");
    assert_eq!(task["ai"]["apiKey"], "sk-runner");
    assert!(task["systemPrompt"].as_str().unwrap().len() > 50);
    let none = json(
        runner.get("/api/runners/tasks/pending?runnerId=r1").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(none["data"], json!([]), "a task is claimed once");

    let base = format!("/api/runners/tasks/{task_id}");
    expect_error(
        runner
            .post(&format!("{base}/status"), json!({ "status": "dancing" }))
            .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    json(
        runner
            .post(&format!("{base}/status"), json!({ "status": "cloning" }))
            .await,
        StatusCode::OK,
    )
    .await;
    let too_many: Vec<String> = (0..201).map(|i| format!("line {i}")).collect();
    for bad in [json!([]), json!(too_many)] {
        expect_error(
            runner
                .post(&format!("{base}/logs"), json!({ "logs": bad }))
                .await,
            StatusCode::BAD_REQUEST,
            "VALIDATION_FAILED",
        )
        .await;
    }
    let appended = json(
        runner
            .post(
                &format!("{base}/logs"),
                json!({ "logs": ["cloned", "reviewing 1 file"] }),
            )
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(appended["data"]["total"], 2);

    let comments = json!([
        { "line": 2, "severity": "error", "message": "unwrap() panics; return the error." },
        { "line": 99, "severity": "warning", "message": "Not a line of the diff." }
    ]);
    expect_error(
        runner
            .post(
                &format!("{base}/result"),
                result_body("r2", comments.clone()),
            )
            .await,
        StatusCode::CONFLICT,
        "CONFLICT",
    )
    .await;
    let mut wrong_count = result_body("r1", comments.clone());
    wrong_count["totalComments"] = json!(7);
    expect_error(
        runner.post(&format!("{base}/result"), wrong_count).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    let done = json(
        runner
            .post(
                &format!("{base}/result"),
                result_body("r1", comments.clone()),
            )
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(done["data"]["taskStatus"], "completed", "{done}");
    expect_error(
        runner
            .post(&format!("{base}/result"), result_body("r1", comments))
            .await,
        StatusCode::CONFLICT,
        "CONFLICT",
    )
    .await;

    let inline = posted(&gitlab, "POST", "/discussions").await;
    assert_eq!(
        inline.len(),
        1,
        "only the comment on a diff line: {inline:?}"
    );
    assert_eq!(inline[0]["position"]["new_line"], 2);
    assert_eq!(
        posted(&gitlab, "POST", "/notes").await.len(),
        1,
        "the summary"
    );
    let after = json(runner.get("/api/runners/r1").await, StatusCode::OK).await;
    assert_eq!(after["data"]["totalJobsCompleted"], 1);
    assert_eq!(after["data"]["currentJobs"], 0);
    assert_eq!(
        app.sql(&format!(
            "SELECT count(*) FROM review_task_logs WHERE task_id = '{task_id}'"
        )),
        "3"
    );
    let review_id = done["data"]["reviewId"].as_str().unwrap();
    assert_eq!(
        app.sql(&format!(
            "SELECT status || ' ' || comment_count FROM reviews WHERE id = '{review_id}'"
        )),
        "completed 1"
    );
}
