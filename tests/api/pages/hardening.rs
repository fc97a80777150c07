//! Hostile text shown as text, framing and foreign scripts forbidden, HTML 404s and cached assets.

use crate::helpers::{TestApp, json};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn hostile_text_is_shown_as_text_and_pages_forbid_framing_and_foreign_scripts() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let hostile = "<script>alert('x')</script>\"><img src=x onerror=alert(1)>";
    json(
        root.post(
            "/api/users",
            json!({ "email": "hostile@reviewd.test", "name": hostile, "password": "a-good-password", "role": "viewer" }),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    let r = root.get("/settings").await;
    assert_eq!(r.status(), StatusCode::OK);
    let csp = r.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'"),
        "{csp}"
    );
    let html = r.text().await.unwrap();
    assert!(
        !html.contains("<script>alert"),
        "unescaped script on the page"
    );
    assert!(!html.contains("<img src=x"), "unescaped tag on the page");
    // askama writes numeric entities.
    assert!(
        html.contains("&#60;script&#62;alert(&#39;x&#39;)"),
        "the name is not shown"
    );
}

#[tokio::test]
async fn unknown_pages_are_html_404s_unknown_api_paths_stay_json_and_assets_are_cached() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let page = root.get("/no/such/page").await;
    assert_eq!(page.status(), StatusCode::NOT_FOUND);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let api = root.get("/api/no/such/thing").await;
    assert_eq!(api.status(), StatusCode::NOT_FOUND);
    let body: serde_json::Value = api.json().await.unwrap();
    assert_eq!(body["error"]["code"], "NOT_FOUND");
    let unknown_review = root
        .get(&format!("/reviews/{}", uuid::Uuid::new_v4()))
        .await;
    assert_eq!(unknown_review.status(), StatusCode::NOT_FOUND);
    let not_a_uuid = root.get("/reviews/%00%3Cx%3E").await;
    assert!(
        not_a_uuid.status().is_client_error(),
        "{}",
        not_a_uuid.status()
    );

    let css = reqwest::get(app.url("/static/app.css?v=1")).await.unwrap();
    assert_eq!(css.status(), StatusCode::OK);
    assert!(
        css.headers()["cache-control"]
            .to_str()
            .unwrap()
            .contains("immutable")
    );
    let etag = css.headers()["etag"].clone();
    let again = reqwest::Client::new()
        .get(app.url("/static/app.css"))
        .header("if-none-match", etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    let worker = reqwest::get(app.url("/sw.js")).await.unwrap();
    assert!(
        worker.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/javascript")
    );
}
