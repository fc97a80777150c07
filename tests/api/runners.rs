use crate::helpers::{TestApp, expect_error, json};
use crate::review_pipeline::{
    HEAD_1, fixture, gitlab_with_one_mr, posted, send_webhook, setup_project,
};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

pub(crate) async fn api_key(app: &TestApp) -> String {
    let created = json(
        app.root()
            .await
            .post("/api/api-keys", json!({ "name": "runner" }))
            .await,
        StatusCode::CREATED,
    )
    .await;
    created["data"]["apiKey"]["key"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn register(app: &TestApp, key: &str, id: &str, max: u32, tags: &str) -> Value {
    let r = reqwest::Client::new()
        .post(app.url("/api/runners/register"))
        .header("x-api-key", key)
        .header("x-runner-id", id)
        .header("x-runner-version", "1.2.3")
        .header("x-runner-max-concurrency", max.to_string())
        .header("x-runner-tags", tags)
        .send()
        .await
        .unwrap();
    json(r, StatusCode::OK).await["data"].clone()
}

/// The server with one synced project on the one-MR GitLab fake (kept alive with it),
/// an AI endpoint for the tasks to carry, and `extra` variables.
async fn runner_world(extra: &[(&str, String)]) -> (TestApp, reviewd_testkit::FakeGitlab) {
    let gitlab = gitlab_with_one_mr().await;
    let mut vars = vec![("PROVIDERA_ENDPOINT", "http://ai.invalid/v1".to_owned())];
    vars.extend(extra.iter().map(|(k, v)| (*k, v.clone())));
    let app = TestApp::spawn_with(&vars).await;
    setup_project(&app, &gitlab).await;
    (app, gitlab)
}

/// Periodic jobs on, ticking once a second (the collect interval bounds the tick),
/// and runners offline after 1.5 s of silence.
fn fast_sweep() -> Vec<(&'static str, String)> {
    vec![
        ("PERIODIC_JOBS_ENABLED", "true".to_owned()),
        ("METRICS_COLLECT_INTERVAL_SECS", "1".to_owned()),
        ("RUNNER_HEARTBEAT_TIMEOUT_MS", "1500".to_owned()),
    ]
}

fn result_body(runner: &str, comments: Value) -> Value {
    let n = comments.as_array().map_or(0, Vec::len);
    json!({
        "runnerId": runner, "status": "success", "totalComments": n, "rating": "B",
        "files": [{ "filePath": "src/app.rs", "status": "success", "comments": comments, "summary": "Adds the runner." }],
        "metrics": { "durationMs": 900, "containerPrepareMs": 10, "cloneMs": 200, "reviewMs": 600, "submitMs": 5, "tokensUsed": 321 },
        "logs": ["review done"]
    })
}

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

#[tokio::test]
async fn a_silent_runner_goes_offline_and_its_task_is_finished_by_another() {
    let (app, _gitlab) = runner_world(&fast_sweep()).await;
    let task_id = send_webhook(&app, &fixture()).await;
    let key = api_key(&app).await;
    let runner = app.with_api_key(&key);
    register(&app, &key, "doomed", 1, "").await;
    register(&app, &key, "survivor", 1, "").await;
    let first = json(
        runner
            .get("/api/runners/tasks/pending?runnerId=doomed")
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(first["data"][0]["id"], task_id.as_str());
    // `doomed` dies here: no heartbeat, no result. `survivor` keeps beating and polling.
    let deadline = Instant::now() + Duration::from_secs(30);
    let claimed = loop {
        json(
            runner
                .post(
                    "/api/runners/survivor/heartbeat",
                    json!({ "status": "online", "currentJobs": 0 }),
                )
                .await,
            StatusCode::OK,
        )
        .await;
        let got = json(
            runner
                .get("/api/runners/tasks/pending?runnerId=survivor")
                .await,
            StatusCode::OK,
        )
        .await;
        if let Some(task) = got["data"].as_array().and_then(|a| a.first()) {
            break task.clone();
        }
        assert!(Instant::now() < deadline, "the task never came back");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(claimed["id"], task_id.as_str());
    assert_eq!(claimed["attempt"], 2, "the second attempt");
    let gone = json(runner.get("/api/runners/doomed").await, StatusCode::OK).await;
    assert_eq!(gone["data"]["status"], "offline");
    // A late result of the dead runner changes nothing.
    expect_error(
        runner
            .post(
                &format!("/api/runners/tasks/{task_id}/result"),
                result_body("doomed", json!([])),
            )
            .await,
        StatusCode::CONFLICT,
        "CONFLICT",
    )
    .await;
    let done = json(
        runner
            .post(
                &format!("/api/runners/tasks/{task_id}/result"),
                result_body("survivor", json!([])),
            )
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(done["data"]["taskStatus"], "completed");
}

#[tokio::test]
async fn runners_polling_at_once_never_share_a_task_and_respect_capacity_and_tags() {
    let gitlab = gitlab_with_one_mr().await;
    // Any MR number answers like MR 1, so twenty MRs can be queued.
    crate::review_pipeline::mount_any_mr(&gitlab).await;
    let app = TestApp::spawn().await;
    setup_project(&app, &gitlab).await;
    let project = app.sql("SELECT id FROM projects LIMIT 1");
    app.sql(&format!(
        "INSERT INTO review_tasks (triggered_by, project_id, mr_iid, status, required_tags) \
         SELECT 'auto', '{project}', n, 'queued', CASE WHEN n > 20 THEN ARRAY['gpu'] ELSE '{{}}' END \
         FROM generate_series(2, 22) n"
    ));
    let key = api_key(&app).await;
    for i in 0..5 {
        register(&app, &key, &format!("r{i}"), 4, "").await;
    }
    let polls = (0..5).map(|i| {
        let runner = app.with_api_key(&key);
        async move {
            let got = json(
                runner
                    .get(&format!(
                        "/api/runners/tasks/pending?runnerId=r{i}&limit=10"
                    ))
                    .await,
                StatusCode::OK,
            )
            .await;
            got["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["id"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    });
    let per_runner: Vec<Vec<String>> = futures_util::future::join_all(polls).await;
    assert!(per_runner.iter().all(|t| t.len() <= 4), "{per_runner:?}");
    let mut all: Vec<String> = per_runner.into_iter().flatten().collect();
    let claimed = all.len();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), claimed, "no task claimed twice");
    assert_eq!(
        claimed, 19,
        "the 19 untagged tasks; the two `gpu` ones wait"
    );
    assert_eq!(
        app.sql("SELECT count(*) FROM review_tasks WHERE status = 'queued'"),
        "2"
    );
}

#[tokio::test]
async fn runner_calls_are_bound_to_the_registering_key_and_need_an_admin_key() {
    let (app, _gitlab) = runner_world(&[]).await;
    let task_id = send_webhook(&app, &fixture()).await;
    let (owner, other) = (api_key(&app).await, api_key(&app).await);
    register(&app, &owner, "r1", 2, "").await;

    // Another key (even the same admin's) cannot drive r1 or take its work.
    let intruder = app.with_api_key(&other);
    expect_error(
        intruder
            .post(
                "/api/runners/r1/heartbeat",
                json!({ "status": "online", "currentJobs": 0 }),
            )
            .await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    expect_error(
        intruder.get("/api/runners/tasks/pending?runnerId=r1").await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    let taken = reqwest::Client::new()
        .post(app.url("/api/runners/register"))
        .header("x-api-key", &other)
        .header("x-runner-id", "r1")
        .send()
        .await
        .unwrap();
    expect_error(taken, StatusCode::CONFLICT, "CONFLICT").await;
    assert_eq!(
        app.sql(&format!(
            "SELECT status FROM review_tasks WHERE id = '{task_id}'"
        )),
        "queued",
        "nothing was claimed by the refused calls"
    );

    // The owner claims; the other key cannot report on the claimed task.
    let claimed = json(
        app.with_api_key(&owner)
            .get("/api/runners/tasks/pending?runnerId=r1")
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(claimed["data"][0]["id"], task_id.as_str());
    expect_error(
        intruder
            .post(
                &format!("/api/runners/tasks/{task_id}/status"),
                json!({ "status": "cloning" }),
            )
            .await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;

    // A viewer's key may read runners but not register one (tasks carry tokens).
    let viewer = app.user_with_role("viewer").await;
    let created = json(
        viewer
            .post("/api/api-keys", json!({ "name": "mine" }))
            .await,
        StatusCode::CREATED,
    )
    .await;
    let viewer_key = created["data"]["apiKey"]["key"].as_str().unwrap();
    let refused = reqwest::Client::new()
        .post(app.url("/api/runners/register"))
        .header("x-api-key", viewer_key)
        .header("x-runner-id", "v1")
        .send()
        .await
        .unwrap();
    expect_error(refused, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    assert_eq!(
        app.with_api_key(viewer_key)
            .get("/api/runners")
            .await
            .status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_task_whose_runner_dies_on_its_last_attempt_fails_its_review_and_says_so() {
    let hooks = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(wiremock::ResponseTemplate::new(200))
        .mount(&hooks)
        .await;
    let (app, _gitlab) = runner_world(&fast_sweep()).await;
    json(
        app.root()
            .await
            .patch(
                "/api/notifications/config",
                json!({ "webhookEnabled": true, "webhookUrls": [format!("{}/events", hooks.uri())] }),
            )
            .await,
        StatusCode::OK,
    )
    .await;
    let task_id = send_webhook(&app, &fixture()).await;
    app.sql(&format!(
        "UPDATE review_tasks SET max_attempts = 1 WHERE id = '{task_id}'"
    ));
    let key = api_key(&app).await;
    register(&app, &key, "last-try", 1, "").await;
    let claimed = json(
        app.with_api_key(&key)
            .get("/api/runners/tasks/pending?runnerId=last-try")
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(claimed["data"][0]["id"], task_id.as_str());
    let review_id = claimed["data"][0]["reviewId"].as_str().unwrap().to_owned();
    // The runner dies: the sweep fails the task (no attempt left) and closes the review.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let state = app.sql(&format!(
            "SELECT t.status || ' ' || r.status FROM review_tasks t, reviews r \
             WHERE t.id = '{task_id}' AND r.id = '{review_id}'"
        ));
        if state == "failed failed" {
            break;
        }
        assert!(Instant::now() < deadline, "not closed: {state}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let error = app.sql(&format!(
        "SELECT error_message FROM reviews WHERE id = '{review_id}'"
    ));
    assert!(error.contains("went silent"), "{error}");
    let deadline = Instant::now() + Duration::from_secs(10);
    let events: Vec<Value> = loop {
        let got: Vec<Value> = hooks
            .received_requests()
            .await
            .unwrap()
            .iter()
            .map(|r| serde_json::from_slice(&r.body).unwrap())
            .collect();
        if !got.is_empty() || Instant::now() > deadline {
            break got;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["event"], "review_failed");
    assert_eq!(events[0]["review"]["reviewId"], review_id.as_str());
}

#[tokio::test]
async fn a_task_given_back_after_a_failed_attempt_waits_the_retry_delay() {
    let (app, _gitlab) = runner_world(&[("QUEUE_RETRY_DELAY_SECS", "2".to_owned())]).await;
    let task_id = send_webhook(&app, &fixture()).await;
    let key = api_key(&app).await;
    let runner = app.with_api_key(&key);
    register(&app, &key, "r1", 1, "").await;
    let claim = || async {
        json(
            runner.get("/api/runners/tasks/pending?runnerId=r1").await,
            StatusCode::OK,
        )
        .await["data"]
            .as_array()
            .unwrap()
            .clone()
    };
    assert_eq!(claim().await.len(), 1, "a fresh task is claimed at once");
    let mut failed = result_body("r1", json!([]));
    failed["status"] = json!("failed");
    failed["error"] = json!("the AI provider was unavailable");
    json(
        runner
            .post(&format!("/api/runners/tasks/{task_id}/result"), failed)
            .await,
        StatusCode::OK,
    )
    .await;
    let given_back = Instant::now();
    assert!(claim().await.is_empty(), "not at once after a failure");
    let again = loop {
        let got = claim().await;
        if !got.is_empty() {
            break got;
        }
        assert!(
            given_back.elapsed() < Duration::from_secs(10),
            "never claimable again"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(
        given_back.elapsed() >= Duration::from_millis(1500),
        "{:?}",
        given_back.elapsed()
    );
    assert_eq!(again[0]["id"], task_id.as_str());
    assert_eq!(again[0]["attempt"], 2);
}

#[tokio::test]
async fn two_tasks_of_one_merge_request_are_never_claimed_at_once() {
    let (app, _gitlab) = runner_world(&[]).await;
    let project = app.sql("SELECT id FROM projects LIMIT 1");
    // A manual and an automatic request for MR 1, both queued.
    app.sql(&format!(
        "INSERT INTO review_tasks (triggered_by, project_id, mr_iid, status) \
         VALUES ('manual', '{project}', 1, 'queued'), ('auto', '{project}', 1, 'queued')"
    ));
    let key = api_key(&app).await;
    register(&app, &key, "wide", 5, "").await;
    register(&app, &key, "other", 5, "").await;
    let runner = app.with_api_key(&key);
    let first = json(
        runner
            .get("/api/runners/tasks/pending?runnerId=wide&limit=5")
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        first["data"].as_array().unwrap().len(),
        1,
        "one per MR: {first}"
    );
    let second = json(
        runner
            .get("/api/runners/tasks/pending?runnerId=other&limit=5")
            .await,
        StatusCode::OK,
    )
    .await;
    assert!(
        second["data"].as_array().unwrap().is_empty(),
        "the MR is busy: {second}"
    );
    assert_eq!(
        app.sql("SELECT count(*) FROM review_tasks WHERE status = 'processing'"),
        "1"
    );
}
