//! Notification settings: secrets masked, replaced and merged, bad input refused; VAPID
//! keys and test deliveries.

use super::receiver;
use crate::helpers::{TestApp, expect_error, json};
use reqwest::StatusCode;
use serde_json::{Value, json};

#[tokio::test]
async fn settings_mask_every_secret_replace_and_merge_and_refuse_bad_input() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let defaults = json(root.get("/api/notifications/config").await, StatusCode::OK).await;
    let c = &defaults["data"]["config"];
    assert_eq!(c["smtpSecure"], true);
    assert_eq!(c["ratingThreshold"], 70);
    assert_eq!(c["notificationFrequency"], "immediate");
    assert_eq!(c["smtpPassword"], Value::Null);

    let saved = json(
        root.post(
            "/api/notifications/config",
            json!({
                "emailEnabled": true, "smtpHost": "smtp.example.com", "smtpPort": 2525,
                "smtpSecure": false, "smtpUsername": "mailer", "smtpPassword": "smtp-pass-123",
                "emailFrom": "reviewd@example.com", "emailRecipients": ["ops@example.com"],
                "webhookEnabled": true, "webhookUrls": ["https://hooks.example.com/r"],
                "webhookSecret": "hook-secret-456",
                "chatAEnabled": true, "chatABotToken": "xoxb-secret-789", "chatAChannels": ["C1"],
                "chatBWebhookUrl": "https://discord.example.com/api/webhooks/1/tok",
                "chatDSecret": "feishu-secret", "ratingThreshold": 60,
                "notificationFrequency": "daily"
            }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let c = &saved["data"]["config"];
    for field in [
        "smtpPassword",
        "webhookSecret",
        "chatABotToken",
        "chatBWebhookUrl",
        "chatDSecret",
    ] {
        assert_eq!(c[field], "***", "{field} is masked: {c}");
    }
    assert_eq!(c["chatCWebhookUrl"], Value::Null);
    assert_eq!(c["smtpPort"], 2525);
    let row = app.sql("SELECT row_to_json(n)::text FROM notification_configs n");
    for secret in [
        "smtp-pass-123",
        "hook-secret-456",
        "xoxb-secret-789",
        "feishu-secret",
        "/tok",
    ] {
        assert!(!row.contains(secret), "{secret} stored in clear: {row}");
    }

    // PATCH changes only what it names; a secret sent back masked stays.
    let patched = json(
        root.patch(
            "/api/notifications/config",
            json!({ "ratingThreshold": 80, "smtpPassword": "***", "chatDSecret": null }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let c = &patched["data"]["config"];
    assert_eq!(c["ratingThreshold"], 80);
    assert_eq!(c["smtpPassword"], "***");
    assert_eq!(c["chatDSecret"], Value::Null);
    assert_eq!(c["smtpHost"], "smtp.example.com");
    assert_eq!(c["notificationFrequency"], "daily");

    // Bad values: 400 naming the field, nothing changed.
    let before = app.sql("SELECT row_to_json(n)::text FROM notification_configs n");
    let body = expect_error(
        root.patch(
            "/api/notifications/config",
            json!({ "ratingThreshold": 101, "emailRecipients": ["not-an-address"] }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert!(body.to_string().contains("emailRecipients[0]"), "{body}");
    expect_error(
        root.patch(
            "/api/notifications/config",
            json!({ "notificationFrequency": "hourly" }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    let unknown = root
        .patch("/api/notifications/config", json!({ "slackToken": "x" }))
        .await;
    assert_eq!(unknown.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        app.sql("SELECT row_to_json(n)::text FROM notification_configs n"),
        before
    );

    // POST with a secret sent back masked keeps it.
    let kept = json(
        root.post(
            "/api/notifications/config",
            json!({ "emailEnabled": true, "smtpPassword": "***", "webhookSecret": "***" }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(kept["data"]["config"]["smtpPassword"], "***", "{kept}");
    assert_eq!(kept["data"]["config"]["webhookSecret"], "***");
    assert_eq!(kept["data"]["config"]["smtpHost"], Value::Null, "replaced");

    // POST replaces: what it leaves out goes back to its default.
    let replaced = json(
        root.post("/api/notifications/config", json!({ "pushEnabled": true }))
            .await,
        StatusCode::OK,
    )
    .await;
    let c = &replaced["data"]["config"];
    assert_eq!(c["pushEnabled"], true);
    assert_eq!(c["emailEnabled"], false);
    assert_eq!(c["smtpPassword"], Value::Null);
    assert_eq!(c["ratingThreshold"], 70);

    // Viewers read but do not change; anonymous callers get 401.
    let viewer = app.user_with_role("viewer").await;
    assert_eq!(
        viewer.get("/api/notifications/config").await.status(),
        StatusCode::OK
    );
    expect_error(
        viewer
            .patch("/api/notifications/config", json!({ "pushEnabled": false }))
            .await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    assert_eq!(
        app.client().get("/api/notifications/config").await.status(),
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn vapid_keys_are_shown_once_and_test_deliveries_report_each_channel() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let keys = json(
        root.post("/api/notifications/config/generate-vapid-keys", json!({}))
            .await,
        StatusCode::OK,
    )
    .await;
    let public = keys["data"]["keys"]["publicKey"]
        .as_str()
        .unwrap()
        .to_owned();
    let private = keys["data"]["keys"]["privateKey"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(public.len(), 87, "65 bytes, base64url: {public}");
    assert_eq!(private.len(), 43, "32 bytes, base64url");
    let config = json(root.get("/api/notifications/config").await, StatusCode::OK).await;
    assert_eq!(config["data"]["config"]["vapidPublicKey"], public.as_str());
    assert_eq!(config["data"]["config"]["vapidPrivateKey"], "***");
    assert!(!config.to_string().contains(&private));
    let viewer = app.user_with_role("viewer").await;
    assert_eq!(
        viewer
            .post("/api/notifications/config/generate-vapid-keys", json!({}))
            .await
            .status(),
        StatusCode::FORBIDDEN
    );

    let good = receiver(200).await;
    let bad = receiver(500).await;
    json(
        root.patch(
            "/api/notifications/config",
            json!({ "webhookUrls": [format!("{}/good", good.uri()), format!("{}/bad", bad.uri())],
                    "chatBWebhookUrl": format!("{}/discord", good.uri()) }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let result = json(
        root.post(
            "/api/notifications/config/test-channel",
            json!({ "channel": "chatB" }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(result["data"]["result"]["success"], true, "{result}");
    let result = json(
        root.post(
            "/api/notifications/config/test-channel",
            json!({ "channel": "webhook" }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let r = &result["data"]["result"];
    assert_eq!(r["success"], false, "{result}");
    assert_eq!(r["recipients"], 2);
    assert!(r["error"].as_str().unwrap().contains("/bad"), "{result}");
    assert_eq!(good.received_requests().await.unwrap().len(), 2);
    let result = json(
        root.post(
            "/api/notifications/config/test-channel",
            json!({ "channel": "email" }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(result["data"]["result"]["success"], false);
    assert!(
        result["data"]["result"]["error"]
            .as_str()
            .unwrap()
            .contains("emailRecipients"),
        "{result}"
    );
    expect_error(
        root.post(
            "/api/notifications/config/test-channel",
            json!({ "channel": "sms" }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    // Test deliveries are not part of the history.
    assert_eq!(app.sql("SELECT count(*) FROM notification_history"), "0");
}
