//! Health checks run, persist and report the worst state.

use super::*;

#[tokio::test]
async fn checks_run_persist_and_report_the_worst_state() {
    use reviewd_testkit::FakeGitlab;
    use serde_json::{Value, json};
    use wiremock::matchers::{header, method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    let ai = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/v1/models"))
        .and(header("authorization", "Bearer sk-health"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({ "object": "list", "data": [{ "id": "m" }] })),
        )
        .mount(&ai)
        .await;
    let app = TestApp::spawn_with(&[
        ("PROVIDERA_ENDPOINT", format!("{}/v1", ai.uri())),
        ("PROVIDERA_API_KEY", "sk-health".to_owned()),
    ])
    .await;
    let gitlab = FakeGitlab::start("glpat-health").await;
    crate::helpers::create_gitlab_config(&app, &gitlab).await;
    let root = app.root().await;
    expect_error(
        app.client().get("/api/health/check").await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    )
    .await;

    let body = json(root.get("/api/health/check").await, StatusCode::OK).await;
    let checks = body["data"]["checks"].as_array().unwrap().clone();
    let kind = |t: &str| {
        checks
            .iter()
            .filter(|c| c["checkType"] == t)
            .cloned()
            .collect::<Vec<Value>>()
    };
    assert_eq!(kind("database")[0]["status"], "healthy");
    assert_eq!(kind("hostA")[0]["status"], "healthy");
    assert_eq!(kind("hostA")[0]["details"]["user"], "reviewer-bot");
    assert_eq!(kind("ai_provider")[0]["status"], "healthy");
    assert_eq!(kind("disk_space").len(), 2, "LOG_DIR and BACKUP_DIR");
    assert!(kind("disk_space")[0]["details"]["freePercent"].is_number());
    let rank = |s: &Value| {
        ["healthy", "degraded", "unhealthy"]
            .iter()
            .position(|x| s == x)
            .unwrap()
    };
    let worst = checks.iter().map(|c| rank(&c["status"])).max().unwrap();
    assert_eq!(
        rank(&body["data"]["overall"]),
        worst,
        "overall is the worst check"
    );

    // The GitLab token is revoked: the hostA check turns unhealthy, and so does the whole.
    gitlab.fail("GET", "^/api/v4/user$", 401, &[], 100).await;
    let hosts = json(root.get("/api/health/hostA").await, StatusCode::OK).await;
    assert_eq!(hosts["data"]["checks"][0]["status"], "unhealthy");
    assert_eq!(hosts["data"]["overall"], "unhealthy");
    let status = json(root.get("/api/health/status").await, StatusCode::OK).await;
    assert_eq!(
        status["data"]["overall"], "unhealthy",
        "the latest stored results"
    );
    assert_eq!(
        status["data"]["checks"].as_array().unwrap().len(),
        checks.len(),
        "one latest result per check"
    );
    let history = json(
        root.get("/api/health/history?checkType=hostA&limit=10")
            .await,
        StatusCode::OK,
    )
    .await;
    let statuses: Vec<_> = history["data"]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["status"].clone())
        .collect();
    assert_eq!(
        statuses,
        vec![json!("unhealthy"), json!("healthy")],
        "newest first"
    );
    let unhealthy = json(
        root.get("/api/health/history?status=unhealthy").await,
        StatusCode::OK,
    )
    .await;
    assert!(
        unhealthy["data"]["checks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["status"] == "unhealthy")
    );
    expect_error(
        root.get("/api/health/history?checkType=cpu").await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUERY",
    )
    .await;
    expect_error(
        root.get("/api/health/history?startDate=yesterday").await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUERY",
    )
    .await;
    let db = json(root.get("/api/health/database").await, StatusCode::OK).await;
    assert_eq!(db["data"]["check"]["checkName"], "postgresql");
    assert!(
        !body.to_string().contains("glpat-health") && !body.to_string().contains("sk-health"),
        "no secret in the report"
    );
}
