//! URLs parsed as the server's client parses them; names on one readable line.

use super::*;

#[tokio::test]
async fn urls_the_server_will_call_are_parsed_as_its_client_parses_them() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    // Accepted before as "starts with https://", and stored.
    let body = expect_error(
        root.post(
            "/api/platform-configs",
            json!({ "name": "broken", "platformType": "hostA", "baseUrl": "https://[0", "accessToken": "t" }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert_eq!(fields(&body), ["baseUrl"]);
    let body = expect_error(
        root.patch(
            "/api/notifications/config",
            json!({ "webhookUrls": ["https://[0"], "emailFrom": "a@b.c\t*" }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert_eq!(fields(&body), ["emailFrom", "webhookUrls[0]"]);
    // 127.0.0.1 spelled in hex is still this host: no push subscription to it.
    let body = expect_error(
        root.post(
            "/api/notifications/push/subscribe",
            json!({ "endpoint": "https://0x7f000001/push", "keys": push_keys() }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert!(body.to_string().contains("private"), "{body}");
}

#[tokio::test]
async fn a_name_is_one_readable_line() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    for (path, body, field) in [
        ("/api/api-keys", json!({ "name": "ci\nkey" }), "name"),
        (
            "/api/users",
            json!({ "email": "dev@example.com", "name": "dev\u{7}", "password": "a-long-password-1", "role": "developer" }),
            "name",
        ),
        (
            "/api/reviews/templates",
            json!({ "name": "\t", "content": "Review it." }),
            "name",
        ),
        (
            "/api/reviews/rules",
            json!({ "ruleName": "two\nlines", "instructions": "Check errors." }),
            "ruleName",
        ),
        (
            "/api/platform-configs",
            json!({ "name": "gitlab\u{85}", "platformType": "hostA", "baseUrl": "https://gitlab.example.com", "accessToken": "t" }),
            "name",
        ),
    ] {
        let body = expect_error(
            root.post(path, body).await,
            StatusCode::BAD_REQUEST,
            "VALIDATION_FAILED",
        )
        .await;
        assert_eq!(fields(&body), [field], "{path}");
    }
}
