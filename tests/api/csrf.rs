//! Cookie-authenticated writes must come from the app's own pages (`Origin`, else
//! `Referer`); API keys and clients that send neither header are not affected.

use crate::helpers::{TestApp, json};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn a_cookie_authenticated_write_from_another_origin_is_refused_and_changes_nothing() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let keys = || app.sql("SELECT count(*) FROM api_keys");
    let before = keys();

    let forged = root
        .request(reqwest::Method::POST, "/api/api-keys")
        .header("Origin", "https://evil.example")
        .json(&json!({ "name": "forged" }))
        .send()
        .await
        .unwrap();
    let body =
        crate::helpers::expect_error(forged, StatusCode::FORBIDDEN, "CSRF_ORIGIN_MISMATCH").await;
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not this app")
    );
    let by_referer = root
        .request(reqwest::Method::POST, "/api/api-keys")
        .header("Referer", "https://evil.example/page")
        .json(&json!({ "name": "forged" }))
        .send()
        .await
        .unwrap();
    assert_eq!(by_referer.status(), StatusCode::FORBIDDEN);
    // A page's form is refused the same way, before its token is even read.
    let form = root
        .request(reqwest::Method::POST, "/settings/api-keys")
        .header("Origin", "http://127.0.0.1:1")
        .form(&[("name", "forged")])
        .send()
        .await
        .unwrap();
    assert_eq!(form.status(), StatusCode::FORBIDDEN);
    assert_eq!(keys(), before);

    // The app's own URL, the address the request went to, and no header at all pass.
    for origin in [
        Some("http://reviewd.test".to_owned()),
        Some(app.base_url.clone()),
        None,
    ] {
        let mut request = root
            .request(reqwest::Method::POST, "/api/api-keys")
            .json(&json!({ "name": "fine" }));
        if let Some(origin) = &origin {
            request = request.header("Origin", origin);
        }
        let r = request.send().await.unwrap();
        assert_eq!(r.status(), StatusCode::CREATED, "origin {origin:?}");
    }
    // An API key is no ambient credential: its calls are never refused for their origin.
    let key = json(
        root.post("/api/api-keys", json!({ "name": "ci" })).await,
        StatusCode::CREATED,
    )
    .await["data"]["apiKey"]["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let with_key = reqwest::Client::new()
        .post(app.url("/api/api-keys"))
        .bearer_auth(&key)
        .header("Origin", "https://elsewhere.example")
        .json(&json!({ "name": "from-a-script" }))
        .send()
        .await
        .unwrap();
    assert_eq!(with_key.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn a_page_form_without_its_session_token_is_refused() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let before = app.sql("SELECT count(*) FROM api_keys");
    for token in [None, Some("0".repeat(64))] {
        let mut fields = vec![("name", "no-token".to_owned())];
        if let Some(t) = token {
            fields.push(("csrf", t));
        }
        let r = root
            .request(reqwest::Method::POST, "/settings/api-keys")
            .form(&fields)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
        assert!(r.text().await.unwrap().contains("reload the page"));
    }
    assert_eq!(app.sql("SELECT count(*) FROM api_keys"), before);
}
