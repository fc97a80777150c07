//! Credentials and methods: every one presented must be valid; 405 with `Allow`; an unsigned
//! webhook is refused before any lookup.

use super::*;

#[tokio::test]
async fn every_presented_credential_must_be_valid() {
    let app = TestApp::spawn().await;
    let key = api_key(&app).await;
    let with_key = app.with_api_key(&key);
    json(with_key.get("/api/auth/me").await, StatusCode::OK).await;
    // A good key beside a stale cookie or a made-up second key is refused.
    for (name, value) in [
        ("cookie", "reviewd_session=made-up"),
        ("x-api-key", "rvd_made_up"),
    ] {
        let r = with_key
            .request(reqwest::Method::GET, "/api/auth/me")
            .header(name, value)
            .send()
            .await
            .unwrap();
        expect_error(r, StatusCode::UNAUTHORIZED, "UNAUTHORIZED").await;
    }
}

#[tokio::test]
async fn a_known_path_with_another_method_is_a_405_with_allow() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    for (path, allow) in [
        ("/api/projects/sync/platform", "POST"),
        ("/api/reviews/trigger-manual-review", "POST"),
        ("/api/api-keys", "GET, POST"),
    ] {
        let r = root
            .request(reqwest::Method::PUT, path)
            .send()
            .await
            .unwrap();
        assert_eq!(r.headers()["allow"].to_str().unwrap(), allow, "{path}");
        expect_error(r, StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED").await;
    }
    // GET of a POST-only path that also fits `GET /api/projects/{id}/platform`.
    let r = root.get("/api/projects/sync/platform").await;
    expect_error(r, StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED").await;
}

#[tokio::test]
async fn an_unsigned_github_delivery_is_a_401_before_anything_is_looked_up() {
    let app = TestApp::spawn().await;
    let r = app
        .client()
        .request(reqwest::Method::POST, "/api/webhook/hostB")
        .header("x-github-event", "ping")
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "UNAUTHORIZED").await;
}
