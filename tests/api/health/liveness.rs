//! Public and detailed health, and an unconfigured AI provider.

use super::*;

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
