//! API-wide conventions: JSON errors everywhere, body limits, request ids.

use crate::helpers::{TestApp, expect_error};
use reqwest::StatusCode;

#[tokio::test]
async fn unknown_routes_get_a_json_404() {
    let app = TestApp::spawn().await;
    let body = expect_error(
        app.client().get("/api/nothing-here").await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/api/nothing-here")
    );
}

#[tokio::test]
async fn malformed_bodies_get_json_errors_not_plain_text() {
    let app = TestApp::spawn().await;
    let client = reqwest::Client::new();
    let url = app.url("/api/auth/login");

    let broken = client
        .post(&url)
        .header("content-type", "application/json")
        .body("{\"email\": ")
        .send()
        .await
        .unwrap();
    expect_error(broken, StatusCode::BAD_REQUEST, "INVALID_BODY").await;

    let wrong_type = client
        .post(&url)
        .header("content-type", "text/plain")
        .body("email=a")
        .send()
        .await
        .unwrap();
    expect_error(
        wrong_type,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "UNSUPPORTED_MEDIA_TYPE",
    )
    .await;

    let huge = format!(
        "{{\"email\": \"{}\", \"password\": \"x\"}}",
        "a".repeat(1024 * 1024 + 10)
    );
    let too_large = client
        .post(&url)
        .header("content-type", "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    expect_error(
        too_large,
        StatusCode::PAYLOAD_TOO_LARGE,
        "PAYLOAD_TOO_LARGE",
    )
    .await;
}

#[tokio::test]
async fn request_ids_are_echoed_or_generated() {
    let app = TestApp::spawn().await;
    let client = reqwest::Client::new();
    let r = client
        .get(app.url("/api/health"))
        .header("x-request-id", "trace-abc_123")
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["x-request-id"], "trace-abc_123");
    let r = client
        .get(app.url("/api/health"))
        .header("x-request-id", "bad id with spaces")
        .send()
        .await
        .unwrap();
    let generated = r.headers()["x-request-id"].to_str().unwrap();
    assert_eq!(generated.len(), 36, "a fresh UUID replaces an unsafe id");
    let r = client.get(app.url("/api/nothing")).send().await.unwrap();
    assert!(
        r.headers().get("x-request-id").is_some(),
        "errors carry the id too"
    );
}

#[tokio::test]
async fn cors_allows_the_app_origin_only() {
    let app = TestApp::spawn().await;
    let client = reqwest::Client::new();
    let preflight = |origin: &'static str| {
        client
            .request(reqwest::Method::OPTIONS, app.url("/api/auth/me"))
            .header("origin", origin)
            .header("access-control-request-method", "GET")
            .send()
    };
    let allowed = preflight("http://reviewd.test").await.unwrap();
    assert_eq!(
        allowed.headers()["access-control-allow-origin"],
        "http://reviewd.test"
    );
    assert_eq!(
        allowed.headers()["access-control-allow-credentials"],
        "true"
    );
    let foreign = preflight("https://evil.example").await.unwrap();
    assert!(
        foreign
            .headers()
            .get("access-control-allow-origin")
            .is_none()
    );
}
