//! SARIF from CI on the server path: a developer's API key uploads a log for the
//! MR's head, and its findings on changed lines land in the round of that head,
//! whether the upload comes before the round or after it concluded. Bad uploads
//! are refused with a 4xx and keep nothing.

use super::*;
use crate::helpers::expect_error;

/// A model that confirms every finding it is shown and has nothing of its own.
fn confirming(prompt: &str) -> Value {
    let verdicts: Vec<Value> = prompt
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.len() > 1 && w.starts_with('T') && w[1..].chars().all(|c| c.is_ascii_digit()))
        .map(|id| json!({ "id": id, "verdict": "confirmed", "reason": "The unwrap panics on None." }))
        .collect();
    let mut answer = json!({ "summary": "Reviewed.", "comments": [] });
    if !verdicts.is_empty() {
        answer["toolFindings"] = json!(verdicts);
    }
    answer
}

/// A log of `clippy-ci` with a finding on `src/app.rs` line 2 (added by
/// `APP_DIFF_1`), one on line 3 (unchanged) and one in a file the MR leaves alone.
fn log() -> Value {
    let result = |uri: &str, line: u32, rule: &str| {
        json!({
            "ruleId": rule, "level": "warning",
            "message": { "text": format!("{rule} here") },
            "locations": [{ "physicalLocation": {
                "artifactLocation": { "uri": uri }, "region": { "startLine": line }
            } }]
        })
    };
    json!({
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": { "name": "clippy-ci" } },
            "results": [
                result("file:///builds/group/svc/src/app.rs", 2, "clippy::unwrap_used"),
                result("src/app.rs", 3, "clippy::needless_return"),
                result("src/other.rs", 2, "clippy::unwrap_used"),
            ]
        }]
    })
}

async fn developer_key(app: &TestApp) -> String {
    let dev = app.user_with_role("developer").await;
    let created = json(
        dev.post("/api/api-keys", json!({ "name": "ci" })).await,
        StatusCode::CREATED,
    )
    .await;
    created["data"]["apiKey"]["key"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn upload(app: &TestApp, key: &str, project: &str, body: &[u8]) -> reqwest::Response {
    app.with_api_key(key)
        .request(
            reqwest::Method::POST,
            &format!("/api/projects/{project}/sarif?commitSha={HEAD_1}"),
        )
        .header("content-type", "application/json")
        .body(body.to_vec())
        .send()
        .await
        .unwrap()
}

fn discussions_on(posted: &[Value], line: u64) -> Vec<String> {
    posted
        .iter()
        .filter(|d| d["position"]["new_path"] == "src/app.rs" && d["position"]["new_line"] == line)
        .map(|d| d["body"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn an_upload_before_the_round_is_evidence_for_it_and_its_finding_is_posted() {
    let ai = fake_ai(confirming).await;
    let gitlab = gitlab_with_one_mr().await;
    let app = app_with_ai(&ai, &[]).await;
    setup_project(&app, &gitlab).await;
    let project = app.sql("SELECT id FROM projects LIMIT 1");
    let key = developer_key(&app).await;

    let r = upload(&app, &key, &project, &serde_json::to_vec(&log()).unwrap()).await;
    let body = json(r, StatusCode::CREATED).await;
    assert_eq!(body["data"]["findings"], 3);
    assert_eq!(body["data"]["tools"], json!(["clippy-ci"]));
    assert_eq!(body["data"]["lands"], "nextRound");
    assert_eq!(body["data"]["commitSha"], HEAD_1);

    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    assert_eq!(task["status"], "completed", "{task}");
    let prompts = reviewd_testkit::file_prompts(&ai).await;
    assert!(
        prompts
            .iter()
            .any(|p| p.contains("T1 line 2 clippy-ci clippy::unwrap_used")),
        "{prompts:?}"
    );
    assert!(
        !prompts.iter().any(|p| p.contains("needless_return")),
        "line 3 is unchanged"
    );
    let posted = posted(&gitlab, "POST", "/discussions").await;
    let line2 = discussions_on(&posted, 2);
    assert_eq!(line2.len(), 1, "{posted:?}");
    assert!(
        line2[0].contains("**clippy-ci** `clippy::unwrap_used`")
            && !line2[0].contains("panics on None"),
        "the model's reason stays on the review page: {line2:?}"
    );
    assert!(discussions_on(&posted, 3).is_empty());
}

#[tokio::test]
async fn an_upload_after_the_round_reviews_its_files_again_with_the_findings() {
    let ai = fake_ai(confirming).await;
    let gitlab = gitlab_with_one_mr().await;
    let app = app_with_ai(&ai, &[]).await;
    setup_project(&app, &gitlab).await;
    let project = app.sql("SELECT id FROM projects LIMIT 1");
    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    assert_eq!(task["status"], "completed", "{task}");
    assert!(
        posted(&gitlab, "POST", "/discussions").await.is_empty(),
        "no finding yet"
    );

    let key = developer_key(&app).await;
    let r = upload(&app, &key, &project, &serde_json::to_vec(&log()).unwrap()).await;
    let body = json(r, StatusCode::CREATED).await;
    assert_eq!(body["data"]["lands"], "reviewAgain");
    assert_eq!(body["data"]["reviewId"], task["reviewId"]);

    let mut line2 = Vec::new();
    for _ in 0..100 {
        line2 = discussions_on(&posted(&gitlab, "POST", "/discussions").await, 2);
        if !line2.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        line2.len(),
        1,
        "the late upload's finding reached the round"
    );
    assert!(line2[0].contains("**clippy-ci** `clippy::unwrap_used`"));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        discussions_on(&posted(&gitlab, "POST", "/discussions").await, 2).len(),
        1,
        "posted once"
    );
}

#[tokio::test]
async fn bad_uploads_are_refused_and_keep_nothing() {
    let ai = fake_ai(confirming).await;
    let gitlab = gitlab_with_one_mr().await;
    let app = app_with_ai(&ai, &[]).await;
    setup_project(&app, &gitlab).await;
    let project = app.sql("SELECT id FROM projects LIMIT 1");
    let key = developer_key(&app).await;

    expect_error(
        upload(&app, &key, &project, b"{\"runs\": [").await,
        StatusCode::BAD_REQUEST,
        "INVALID_BODY",
    )
    .await;
    let not_sarif =
        serde_json::to_vec(&json!({ "version": "2.1.0", "runs": [{ "results": [] }] })).unwrap();
    expect_error(
        upload(&app, &key, &project, &not_sarif).await,
        StatusCode::BAD_REQUEST,
        "INVALID_BODY",
    )
    .await;
    let deep = format!("{}{}", "[".repeat(50_000), "]".repeat(50_000));
    expect_error(
        upload(&app, &key, &project, deep.as_bytes()).await,
        StatusCode::BAD_REQUEST,
        "INVALID_BODY",
    )
    .await;
    let huge = vec![b' '; 10 * 1024 * 1024 + 1];
    expect_error(
        upload(&app, &key, &project, &huge).await,
        StatusCode::PAYLOAD_TOO_LARGE,
        "PAYLOAD_TOO_LARGE",
    )
    .await;
    let unknown = uuid::Uuid::new_v4().to_string();
    let valid = serde_json::to_vec(&log()).unwrap();
    expect_error(
        upload(&app, &key, &unknown, &valid).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    let r = app
        .with_api_key(&key)
        .request(
            reqwest::Method::POST,
            &format!("/api/projects/{project}/sarif?commitSha=main"),
        )
        .header("content-type", "application/json")
        .body(valid.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let viewer = app.user_with_role("viewer").await;
    let r = viewer
        .request(
            reqwest::Method::POST,
            &format!("/api/projects/{project}/sarif?commitSha={HEAD_1}"),
        )
        .header("content-type", "application/json")
        .body(valid)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert_eq!(app.sql("SELECT count(*) FROM analysis_uploads"), "0");

    // A NUL in a text reviewd reads is a 400, as the API document says; one in
    // another property is the tool's business, and never a 500.
    let mut nul = log();
    nul["runs"][0]["tool"]["driver"]["name"] = json!("clippy\u{0}ci");
    let r = upload(&app, &key, &project, &serde_json::to_vec(&nul).unwrap()).await;
    expect_error(r, StatusCode::BAD_REQUEST, "INVALID_BODY").await;
    let mut elsewhere = log();
    elsewhere["runs"][0]["properties"] = json!({ "a\u{0}b": "c\u{0}d" });
    elsewhere["runs"][0]["tool"]["driver"]["name"] = json!("clippy\u{7}ci");
    let r = upload(
        &app,
        &key,
        &project,
        &serde_json::to_vec(&elsewhere).unwrap(),
    )
    .await;
    let body = json(r, StatusCode::CREATED).await;
    assert_eq!(body["data"]["tools"], json!(["clippy ci"]));
}
