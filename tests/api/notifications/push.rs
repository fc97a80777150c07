//! Browser push subscriptions: registered, listed, touched and removed.

use super::browser_keys;
use crate::helpers::{TestApp, expect_error, json};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn push_subscriptions_are_registered_listed_touched_and_removed() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let dev = app.user_with_role("developer").await;
    let me = json(dev.get("/api/auth/me").await, StatusCode::OK).await;
    let dev_id = me["data"]["user"]["id"].as_str().unwrap().to_owned();

    let endpoint = "https://push.example.com/send/abc";
    let mut body = json!({ "endpoint": endpoint, "expirationTime": null });
    body["keys"] = browser_keys();
    let created = json(
        dev.post("/api/notifications/push/subscribe", body.clone())
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(created["data"]["subscription"]["userId"], dev_id.as_str());
    assert!(
        created["data"]["subscription"].get("auth").is_none(),
        "the browser's secret is not shown"
    );
    // The same endpoint again updates rather than duplicates.
    json(
        dev.post("/api/notifications/push/subscribe", body).await,
        StatusCode::OK,
    )
    .await;
    let all = json(
        root.get("/api/notifications/push/subscriptions").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(all["data"].as_array().unwrap().len(), 1);
    let mine = json(
        root.get(&format!("/api/notifications/push/users/{dev_id}"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(mine["data"][0]["endpoint"], endpoint);

    expect_error(
        dev.post(
            "/api/notifications/push/subscribe",
            json!({ "endpoint": "not a url", "keys": { "p256dh": "x", "auth": "y" } }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    // Any signed-in user may subscribe, so the server must not be pointed at
    // itself or its network: only public https push services.
    for endpoint in [
        "http://push.example.com/x",
        "https://127.0.0.1:8500/v1/kv",
        "https://10.0.0.5/x",
    ] {
        let mut body = json!({ "endpoint": endpoint });
        body["keys"] = browser_keys();
        expect_error(
            dev.post("/api/notifications/push/subscribe", body).await,
            StatusCode::BAD_REQUEST,
            "VALIDATION_FAILED",
        )
        .await;
    }
    let missing_keys = dev
        .post(
            "/api/notifications/push/subscribe",
            json!({ "endpoint": endpoint }),
        )
        .await;
    assert_eq!(missing_keys.status(), StatusCode::BAD_REQUEST);

    json(
        dev.post(
            "/api/notifications/push/touch",
            json!({ "endpoint": endpoint }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        app.sql("SELECT last_used_at IS NOT NULL FROM push_subscriptions"),
        "t"
    );
    expect_error(
        dev.post(
            "/api/notifications/push/touch",
            json!({ "endpoint": "https://push.example.com/none" }),
        )
        .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;

    // A subscription the push service has already ended (expirationTime in ms).
    let mut ended =
        json!({ "endpoint": "https://push.example.com/send/old", "expirationTime": 1_000.0 });
    ended["keys"] = browser_keys();
    json(
        dev.post("/api/notifications/push/subscribe", ended).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        dev.post("/api/notifications/push/clean", json!({}))
            .await
            .status(),
        StatusCode::FORBIDDEN
    );
    let cleaned = json(
        root.post("/api/notifications/push/clean", json!({})).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(cleaned["data"]["deleted"], 1);
    let left = json(
        root.get("/api/notifications/push/subscriptions").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        left["data"][0]["endpoint"], endpoint,
        "the live one stays: {left}"
    );
    assert_eq!(left["data"].as_array().unwrap().len(), 1);

    let mut again = json!({ "endpoint": endpoint });
    again["keys"] = browser_keys();
    json(
        dev.post("/api/notifications/push/subscribe", again).await,
        StatusCode::OK,
    )
    .await;
    let r = dev
        .request(
            reqwest::Method::DELETE,
            "/api/notifications/push/unsubscribe",
        )
        .json(&json!({ "endpoint": endpoint }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let r = dev
        .request(
            reqwest::Method::DELETE,
            "/api/notifications/push/unsubscribe",
        )
        .json(&json!({ "endpoint": endpoint }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
}
