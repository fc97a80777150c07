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
    let moved = json(
        maintainer
            .patch(
                &format!("/api/ai-configs/{id}"),
                json!({ "endpoint": format!("{}/v1", elsewhere.uri()), "apiKey": "***" }),
            )
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(moved["data"]["config"]["apiKey"], Value::Null, "{moved}");
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
    json(
        maintainer
            .patch(
                &format!("/api/ai-configs/{id}"),
                json!({ "endpoint": format!("{}/v1", home.uri()), "apiKey": "sk-stored" }),
            )
            .await,
        StatusCode::OK,
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
    let renamed = json(
        maintainer
            .patch(
                &format!("/api/ai-configs/{id}"),
                json!({ "name": "Team B" }),
            )
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(renamed["data"]["config"]["apiKey"], "***");
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
    json(
        root.patch("/api/notifications/config", email(home.port()))
            .await,
        StatusCode::OK,
    )
    .await;
    let moved = json(
        maintainer
            .patch(
                "/api/notifications/config",
                json!({ "smtpPort": elsewhere.port(), "smtpPassword": "***" }),
            )
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        moved["data"]["config"]["smtpPassword"],
        Value::Null,
        "{moved}"
    );
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
    json(
        root.patch("/api/notifications/config", email(home.port()))
            .await,
        StatusCode::OK,
    )
    .await;
    let edited = json(
        maintainer
            .patch(
                "/api/notifications/config",
                json!({ "ratingThreshold": 60 }),
            )
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(edited["data"]["config"]["smtpPassword"], "***");
    let retyped = json(
        maintainer
            .patch(
                "/api/notifications/config",
                json!({ "smtpPort": elsewhere.port(), "smtpPassword": "smtp-pass-123" }),
            )
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(retyped["data"]["config"]["smtpPassword"], "***");
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
    let moved = json(
        root.patch(
            &format!("/api/platform-configs/{id}"),
            json!({ "baseUrl": elsewhere.base_url(), "appSecret": "another-secret" }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(moved["data"]["config"]["appSecret"], "***");
    assert!(moved["data"]["config"]["accessToken"].is_null(), "{moved}");
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
