use crate::helpers::{TestApp, expect_error, json};
use reqwest::StatusCode;

#[tokio::test]
async fn public_health_is_ok_with_environment_and_request_id() {
    let app = TestApp::spawn().await;
    let r = reqwest::get(app.url("/api/health")).await.unwrap();
    assert!(r.headers().get("x-request-id").is_some());
    let body = json(r, StatusCode::OK).await;
    assert_eq!(body["data"]["status"], "ok");
    assert_eq!(body["data"]["environment"]["nodeEnv"], "test");
    assert_eq!(body["data"]["environment"]["appEnv"], "test");
    assert!(body["data"]["timestamp"].as_str().unwrap().contains('T'));
}

#[tokio::test]
async fn detailed_health_needs_auth_and_reports_dependencies() {
    let app = TestApp::spawn().await;
    expect_error(
        app.client().get("/api/health/detailed").await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    )
    .await;

    let body = json(
        app.root().await.get("/api/health/detailed").await,
        StatusCode::OK,
    )
    .await;
    let data = &body["data"];
    assert_eq!(data["status"], "ok");
    assert_eq!(data["version"], env!("CARGO_PKG_VERSION"));
    assert!(data["uptime"].is_u64());
    assert_eq!(data["checks"]["database"]["status"], "healthy");
    assert_eq!(data["checks"]["queue"]["status"], "healthy");
}

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

#[tokio::test]
async fn an_unconfigured_ai_provider_is_reported_unhealthy_with_the_reason() {
    let app = TestApp::spawn().await;
    let body = json(
        app.root().await.get("/api/health/ai-providers").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(body["data"]["checks"][0]["status"], "unhealthy");
    assert!(
        body["data"]["checks"][0]["details"]["error"]
            .as_str()
            .unwrap()
            .contains("PROVIDERA_ENDPOINT")
    );
}

#[tokio::test]
async fn metrics_expose_requests_by_route_template_never_by_raw_path() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let id = uuid::Uuid::new_v4();
    for _ in 0..3 {
        expect_error(
            root.get(&format!("/api/reviews/{id}")).await,
            StatusCode::NOT_FOUND,
            "NOT_FOUND",
        )
        .await;
    }
    let r = reqwest::get(app.url("/api/metrics")).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    let text = r.text().await.unwrap();
    // Parse the exposition: `name{label="v",...} value`.
    let sample = |name: &str, labels: &[&str]| -> Option<f64> {
        text.lines().filter(|l| !l.starts_with('#')).find_map(|l| {
            let (series, value) = l.rsplit_once(' ')?;
            ((series == name || series.starts_with(&format!("{name}{{")))
                && labels.iter().all(|lab| series.contains(lab)))
            .then(|| value.parse().ok())?
        })
    };
    let count = sample(
        "http_requests_total",
        &[
            r#"route="/api/reviews/{review_id}""#,
            r#"method="GET""#,
            r#"status="404""#,
        ],
    );
    assert!(
        count.is_some_and(|c| c >= 3.0),
        "the 404s are counted under the template:\n{text}"
    );
    assert!(
        sample(
            "http_request_duration_seconds_count",
            &[r#"route="/api/reviews/{review_id}""#]
        )
        .is_some_and(|c| c >= 3.0)
    );
    assert!(!text.contains(&id.to_string()), "no raw id becomes a label");
    assert!(
        sample("reviewd_queue_depth", &[]).is_some(),
        "queue depth gauge"
    );
}
