//! A stored secret follows its destination: whoever may edit a setting (a
//! maintainer holds `config:update` and never reads a secret) cannot collect the
//! secret by pointing the setting at a server of their own. Moving the AI endpoint
//! or the SMTP host drops the secret unless it is typed again; moving an OAuth
//! platform needs its application secret again and drops the old host's tokens.

use crate::ai_configs::{config, models_server};
use crate::helpers::{TestApp, expect_error, json};
use reqwest::StatusCode;
use reviewd_testkit::{FakeGitlab, FakeSmtp};
use serde_json::{Value, json};

/// The `data.config` of a 200 answer to `PATCH path` with `body`.
async fn patched(session: &crate::helpers::Session, path: &str, body: Value) -> Value {
    json(session.patch(path, body).await, StatusCode::OK).await["data"]["config"].clone()
}

#[tokio::test]
async fn a_new_ai_endpoint_never_receives_the_stored_key() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let maintainer = app.user_with_role("maintainer").await;
    let home = models_server("sk-stored").await;
    let elsewhere = models_server("sk-new").await;
    let created = json(
        root.post(
            "/api/ai-configs",
            config(
                "Team",
                &format!("{}/v1", home.uri()),
                "sk-stored",
                "model-b",
            ),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let id = created["data"]["config"]["id"].as_str().unwrap().to_owned();

    // The maintainer moves only the endpoint: the key does not go along.
    let moved = patched(
        &maintainer,
        &format!("/api/ai-configs/{id}"),
        json!({ "endpoint": format!("{}/v1", elsewhere.uri()), "apiKey": "***" }),
    )
    .await;
    assert_eq!(moved["apiKey"], Value::Null, "{moved}");
    let tried = json(
        maintainer
            .post("/api/ai-configs/test", json!({ "id": id }))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(tried["data"]["success"], false, "{tried}");
    let leaked = elsewhere
        .received_requests()
        .await
        .unwrap()
        .iter()
        .any(|r| format!("{:?}", r.headers).contains("sk-stored"));
    assert!(!leaked, "the new endpoint saw the stored key");

    // Typed again in the same request, a key goes where it was typed for.
    patched(
        &maintainer,
        &format!("/api/ai-configs/{id}"),
        json!({ "endpoint": format!("{}/v1", home.uri()), "apiKey": "sk-stored" }),
    )
    .await;
    let tried = json(
        maintainer
            .post("/api/ai-configs/test", json!({ "id": id }))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(tried["data"]["success"], true, "{tried}");
    // Other edits keep it.
    let renamed = patched(
        &maintainer,
        &format!("/api/ai-configs/{id}"),
        json!({ "name": "Team B" }),
    )
    .await;
    assert_eq!(renamed["apiKey"], "***");
}

#[tokio::test]
async fn a_new_smtp_host_never_receives_the_stored_password() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let maintainer = app.user_with_role("maintainer").await;
    let home = FakeSmtp::builder()
        .credentials("mailer", "smtp-pass-123")
        .start()
        .await;
    let elsewhere = FakeSmtp::start().await;
    let email = |port: u16| {
        json!({ "emailEnabled": true, "smtpHost": "127.0.0.1", "smtpPort": port, "smtpSecure": false,
                "smtpUsername": "mailer", "smtpPassword": "smtp-pass-123",
                "emailFrom": "reviewd@example.com", "emailRecipients": ["team@example.com"] })
    };
    patched(&root, "/api/notifications/config", email(home.port())).await;
    let moved = patched(
        &maintainer,
        "/api/notifications/config",
        json!({ "smtpPort": elsewhere.port(), "smtpPassword": "***" }),
    )
    .await;
    assert_eq!(moved["smtpPassword"], Value::Null, "{moved}");
    maintainer
        .post(
            "/api/notifications/config/test-channel",
            json!({ "channel": "email" }),
        )
        .await;
    assert!(
        !elsewhere
            .commands()
            .await
            .iter()
            .any(|c| c.starts_with("AUTH")),
        "the new server was sent credentials: {:?}",
        elsewhere.commands().await
    );
    // Other edits keep it; so does moving with the password typed again.
    patched(&root, "/api/notifications/config", email(home.port())).await;
    let edited = patched(
        &maintainer,
        "/api/notifications/config",
        json!({ "ratingThreshold": 60 }),
    )
    .await;
    assert_eq!(edited["smtpPassword"], "***");
    let retyped = patched(
        &maintainer,
        "/api/notifications/config",
        json!({ "smtpPort": elsewhere.port(), "smtpPassword": "smtp-pass-123" }),
    )
    .await;
    assert_eq!(retyped["smtpPassword"], "***");
}

#[tokio::test]
async fn an_oauth_platform_moves_only_with_its_secret_typed_again() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let home = FakeGitlab::start(crate::platform_configs::TOKEN).await;
    let elsewhere = FakeGitlab::start(crate::platform_configs::TOKEN).await;
    let created = json(
        root.post(
            "/api/platform-configs",
            json!({ "name": "OAuth GitLab", "platformType": "hostA", "baseUrl": home.base_url(),
                    "authType": "oauth", "appId": "app-123", "appSecret": "app-secret-xyz" }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let id = created["data"]["config"]["id"].as_str().unwrap().to_owned();
    let before = app.sql("SELECT row_to_json(p)::text FROM platform_configs p");
    expect_error(
        root.patch(
            &format!("/api/platform-configs/{id}"),
            json!({ "baseUrl": elsewhere.base_url() }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert_eq!(
        app.sql("SELECT row_to_json(p)::text FROM platform_configs p"),
        before,
        "a refused move changes nothing"
    );
    let moved = patched(
        &root,
        &format!("/api/platform-configs/{id}"),
        json!({ "baseUrl": elsewhere.base_url(), "appSecret": "another-secret" }),
    )
    .await;
    assert_eq!(moved["appSecret"], "***");
    assert!(moved["accessToken"].is_null(), "{moved}");
    // No stored secret of the old host is left to reach the new one by switching
    // the auth type afterwards: a token config there needs a token typed.
    expect_error(
        root.patch(
            &format!("/api/platform-configs/{id}"),
            json!({ "authType": "token" }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    let seen = format!("{:?}", elsewhere.requests().await);
    assert!(
        !seen.contains("app-secret-xyz"),
        "the new host saw the old secret"
    );
}
