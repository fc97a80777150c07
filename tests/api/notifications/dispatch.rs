//! A finished review reaches every channel; a failing channel does not stop the others.

use super::{bodies, browser_keys, receiver, settled, slack};
use crate::helpers::{expect_error, json};
use crate::review_pipeline::{
    app_with_ai, fake_ai, fixture, gitlab_with_one_mr, review_answer, send_webhook, setup_project,
    wait_for,
};
use reqwest::StatusCode;
use reviewd_testkit::FakeSmtp;
use serde_json::json;
use std::time::Duration;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

#[tokio::test]
async fn a_finished_review_reaches_every_channel_and_a_failing_one_does_not_stop_the_others() {
    let gitlab = gitlab_with_one_mr().await;
    let ai = fake_ai(review_answer).await;
    let smtp = FakeSmtp::start().await;
    let hooks = receiver(200).await;
    let slack = slack().await;
    let discord = receiver(204).await;
    let teams = receiver(500).await;
    let feishu = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(10)))
        .mount(&feishu)
        .await;
    let push = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/push/live"))
        .respond_with(ResponseTemplate::new(201))
        .mount(&push)
        .await;
    Mock::given(method("POST"))
        .and(path("/push/gone"))
        .respond_with(ResponseTemplate::new(410))
        .mount(&push)
        .await;
    let app = app_with_ai(
        &ai,
        &[
            ("NOTIFY_MAX_ATTEMPTS", "2".to_owned()),
            ("NOTIFY_RETRY_BASE_MS", "50".to_owned()),
            ("NOTIFY_TIMEOUT_SECS", "1".to_owned()),
            ("NOTIFY_CHAT_A_API_URL", slack.uri()),
            // The fake push service listens on 127.0.0.1 over http.
            ("NOTIFY_PUSH_ALLOW_PRIVATE", "true".to_owned()),
        ],
    )
    .await;
    setup_project(&app, &gitlab).await;
    let root = app.root().await;
    json(
        root.post("/api/notifications/config/generate-vapid-keys", json!({}))
            .await,
        StatusCode::OK,
    )
    .await;
    json(
        root.patch(
            "/api/notifications/config",
            json!({
                "emailEnabled": true, "smtpHost": "127.0.0.1", "smtpPort": smtp.port(),
                "smtpSecure": false, "emailFrom": "reviewd@example.com",
                "emailRecipients": ["ops@example.com", "lead@example.com"],
                "webhookEnabled": true, "webhookUrls": [format!("{}/reviews", hooks.uri())],
                "webhookSecret": "hook-secret",
                "chatAEnabled": true, "chatABotToken": "xoxb-bot-token", "chatAChannels": ["C1"],
                "chatBEnabled": true, "chatBWebhookUrl": format!("{}/api/webhooks/1/tok", discord.uri()),
                "chatCEnabled": true, "chatCWebhookUrl": format!("{}/teams", teams.uri()),
                "chatDEnabled": true, "chatDWebhookUrl": format!("{}/hook/abc", feishu.uri()),
                "pushEnabled": true, "vapidSubject": "mailto:ops@example.com",
                "ratingThreshold": 90
            }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    for endpoint in ["live", "gone"] {
        let mut body = json!({ "endpoint": format!("{}/push/{endpoint}", push.uri()) });
        body["keys"] = browser_keys();
        json(
            root.post("/api/notifications/push/subscribe", body).await,
            StatusCode::OK,
        )
        .await;
    }

    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    assert_eq!(task["status"], "completed", "{task}");
    // review_completed and rating_low (84 < 90), sent at once, each to: 2 emails,
    // 1 webhook, 1 Slack channel, Discord, Teams, Feishu and both push
    // subscriptions (the gone one is removed after both were tried).
    let items = settled(&app, 18).await;
    assert_eq!(items.len(), 18, "{items:#?}");
    let review_id = task["reviewId"].as_str().unwrap();
    assert!(items.iter().all(|i| i["reviewId"] == review_id));
    let status_of = |channel: &str| -> Vec<String> {
        items
            .iter()
            .filter(|i| i["channel"] == channel)
            .map(|i| i["status"].as_str().unwrap().to_owned())
            .collect()
    };
    for channel in ["email", "webhook", "chatA", "chatB"] {
        assert!(
            status_of(channel).iter().all(|s| s == "sent"),
            "{channel}: {items:#?}"
        );
    }
    for channel in ["chatC", "chatD"] {
        assert_eq!(status_of(channel), vec!["failed", "failed"], "{channel}");
    }
    let teams_failure = items.iter().find(|i| i["channel"] == "chatC").unwrap();
    assert!(
        teams_failure["errorMessage"]
            .as_str()
            .unwrap()
            .contains("500"),
        "{teams_failure}"
    );
    assert_eq!(teams_failure["attempts"], 2, "retried once");
    assert_eq!(
        teams.received_requests().await.unwrap().len(),
        4,
        "two events, two attempts each"
    );
    assert!(
        items
            .iter()
            .all(|i| i["channel"] != "chatB" || !i["recipient"].to_string().contains("tok")),
        "a chat webhook URL with its token is not shown as the recipient"
    );

    // Email: one message per recipient and event, over plain SMTP.
    let mails = smtp.messages().await;
    assert_eq!(mails.len(), 4, "{mails:?}");
    assert!(
        mails
            .iter()
            .any(|m| m.data.contains("Review completed: group/svc-1")
                || m.data.contains("Review completed:"))
    );
    assert!(mails.iter().any(|m| m.data.contains("Low rating")));

    // Webhook: signed over timestamp and body.
    let hook_requests = hooks.received_requests().await.unwrap();
    assert_eq!(hook_requests.len(), 2);
    for r in &hook_requests {
        let timestamp = r
            .headers
            .get("x-reviewd-timestamp")
            .unwrap()
            .to_str()
            .unwrap();
        let signature = r
            .headers
            .get("x-reviewd-signature")
            .unwrap()
            .to_str()
            .unwrap();
        let mut signed = format!("{timestamp}.").into_bytes();
        signed.extend_from_slice(&r.body);
        assert_eq!(
            signature,
            format!(
                "sha256={}",
                reviewd_crypto::hmac_sha256_hex(b"hook-secret", &signed)
            )
        );
    }
    let events: Vec<String> = bodies(&hook_requests)
        .iter()
        .map(|b| b["event"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        events.contains(&"review_completed".to_owned())
            && events.contains(&"rating_low".to_owned())
    );
    let completed = bodies(&hook_requests)
        .into_iter()
        .find(|b| b["event"] == "review_completed")
        .unwrap();
    assert_eq!(completed["review"]["rating"], "B", "{completed}");
    assert_eq!(completed["review"]["score"], 84);

    let slack_bodies = bodies(&slack.received_requests().await.unwrap());
    assert!(slack_bodies.iter().all(|b| b["channel"] == "C1"));
    assert_eq!(discord.received_requests().await.unwrap().len(), 2);

    // Push: encrypted, VAPID-signed; the gone subscription was removed.
    let live: Vec<Request> = push
        .received_requests()
        .await
        .unwrap()
        .into_iter()
        .filter(|r| r.url.path() == "/push/live")
        .collect();
    assert_eq!(live.len(), 2);
    for r in &live {
        assert_eq!(r.headers.get("content-encoding").unwrap(), "aes128gcm");
        assert!(
            r.headers
                .get("authorization")
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("vapid t=")
        );
        assert!(!String::from_utf8_lossy(&r.body).contains("Review completed"));
    }
    let subs = json(
        root.get("/api/notifications/push/subscriptions").await,
        StatusCode::OK,
    )
    .await;
    let endpoints: Vec<&str> = subs["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["endpoint"].as_str().unwrap())
        .collect();
    assert_eq!(
        endpoints,
        vec![format!("{}/push/live", push.uri()).as_str()]
    );

    // Statistics, filters, one record, pending/failed lists, clean.
    let stats = json(root.get("/api/notifications/stats").await, StatusCode::OK).await;
    let s = &stats["data"]["stats"];
    assert_eq!(s["total"], 18, "{stats}");
    assert_eq!(s["byChannel"]["email"]["sent"], 4);
    assert_eq!(s["byChannel"]["chatC"]["failed"], 2);
    assert_eq!(
        s["byStatus"]["failed"], 6,
        "Teams, Feishu and the gone push, once per event"
    );
    let failed = json(root.get("/api/notifications/failed").await, StatusCode::OK).await;
    assert_eq!(failed["data"]["items"].as_array().unwrap().len(), 6);
    let pending = json(root.get("/api/notifications/pending").await, StatusCode::OK).await;
    assert!(pending["data"]["items"].as_array().unwrap().is_empty());
    let emails = json(
        root.get("/api/notifications?channel=email&status=sent&notificationType=rating_low")
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(emails["data"]["items"].as_array().unwrap().len(), 2);
    let one_id = emails["data"]["items"][0]["id"].as_str().unwrap();
    let one = json(
        root.get(&format!("/api/notifications/history/{one_id}"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(one["data"]["notification"]["channel"], "email");
    assert!(one["data"]["notification"]["sentAt"].is_string());
    expect_error(
        root.get(&format!(
            "/api/notifications/history/{}",
            uuid::Uuid::new_v4()
        ))
        .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    expect_error(
        root.get("/api/notifications?status=lost").await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUERY",
    )
    .await;
    let developer = app.user_with_role("developer").await;
    assert_eq!(
        developer
            .post("/api/notifications/clean", json!({ "days": 0 }))
            .await
            .status(),
        StatusCode::FORBIDDEN
    );
    let cleaned = json(
        root.post("/api/notifications/clean", json!({ "days": 1 }))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(cleaned["data"]["deleted"], 0, "nothing is a day old");
    let cleaned = json(
        root.post("/api/notifications/clean", json!({ "days": 0 }))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(cleaned["data"]["deleted"], 18);
}
