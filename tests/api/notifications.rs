//! Notifications end to end: settings with masked secrets, test deliveries, VAPID
//! keys, dispatch after real reviews to every channel (fake SMTP, webhook, Slack,
//! Discord, Teams, Feishu and push endpoints), failures that do not stop the other
//! channels, history and statistics, digests, and push subscriptions.

use crate::helpers::{TestApp, expect_error, json};
use crate::review_pipeline::{
    app_with_ai, fake_ai, fixture, gitlab_with_one_mr, review_answer, send_webhook, setup_project,
    wait_for,
};
use reqwest::StatusCode;
use reviewd_domain::ports::VapidKeyGenerator;
use reviewd_testkit::FakeSmtp;
use serde_json::{Value, json};
use std::time::Duration;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

async fn receiver(status: u16) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(status))
        .mount(&server)
        .await;
    server
}

/// A Slack Web API that accepts `chat.postMessage` for the bot token.
async fn slack() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/chat.postMessage"))
        .respond_with(|req: &Request| {
            let authorised = req
                .headers
                .get("authorization")
                .is_some_and(|v| v == "Bearer xoxb-bot-token");
            let body = if authorised {
                json!({ "ok": true, "channel": "C1", "ts": "1.2" })
            } else {
                json!({ "ok": false, "error": "invalid_auth" })
            };
            ResponseTemplate::new(200).set_body_json(body)
        })
        .mount(&server)
        .await;
    server
}

/// A browser's subscription keys (a real P-256 point and a 16-byte secret).
fn browser_keys() -> Value {
    let keys = reviewd_notify::P256VapidKeys.generate().unwrap();
    json!({ "p256dh": keys.public_key, "auth": "q1w2e3r4t5y6u7i8o9p0aQ" })
}

fn bodies(requests: &[Request]) -> Vec<Value> {
    requests
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

/// Polls the history until no delivery is pending.
async fn settled(app: &TestApp, expected: usize) -> Vec<Value> {
    let root = app.root().await;
    let mut items = Vec::new();
    for _ in 0..200 {
        let page = json(
            root.get("/api/notifications?pageSize=100").await,
            StatusCode::OK,
        )
        .await;
        items = page["data"]["items"].as_array().unwrap().clone();
        if items.len() >= expected && items.iter().all(|i| i["status"] != "pending") {
            return items;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("deliveries did not settle: {items:#?}");
}

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
    // review_completed and rating_low (84 < 90), each to: 2 emails, 1 webhook, 1
    // Slack channel, Discord, Teams, Feishu and the push subscriptions (two for the
    // first event; the gone one is removed before the second).
    let items = settled(&app, 17).await;
    assert_eq!(items.len(), 17, "{items:#?}");
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
    assert_eq!(s["total"], 17, "{stats}");
    assert_eq!(s["byChannel"]["email"]["sent"], 4);
    assert_eq!(s["byChannel"]["chatC"]["failed"], 2);
    assert_eq!(
        s["byStatus"]["failed"], 5,
        "Teams and Feishu twice, the gone push once"
    );
    let failed = json(root.get("/api/notifications/failed").await, StatusCode::OK).await;
    assert_eq!(failed["data"]["items"].as_array().unwrap().len(), 5);
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
    assert_eq!(cleaned["data"]["deleted"], 17);
}

#[tokio::test]
async fn daily_frequency_holds_events_for_one_digest_sent_by_one_replica() {
    let gitlab = gitlab_with_one_mr().await;
    let ai = fake_ai(review_answer).await;
    let hooks = receiver(200).await;
    let app = app_with_ai(&ai, &[]).await;
    setup_project(&app, &gitlab).await;
    let root = app.root().await;
    json(
        root.patch(
            "/api/notifications/config",
            json!({ "webhookEnabled": true, "webhookUrls": [format!("{}/digest", hooks.uri())],
                    "notificationFrequency": "daily", "ratingThreshold": 90 }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    assert_eq!(task["status"], "completed");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        hooks.received_requests().await.unwrap().is_empty(),
        "held for the digest"
    );
    assert_eq!(
        app.sql("SELECT count(*) FROM notification_digest_events WHERE digested_at IS NULL"),
        "2"
    );

    // Two replicas with periodic jobs and the digest time already past today: the
    // day's digest is sent once.
    let jobs = [
        ("PERIODIC_JOBS_ENABLED", "true".to_owned()),
        ("METRICS_COLLECT_INTERVAL_SECS", "1".to_owned()),
        ("NOTIFY_DIGEST_TIME", "00:00".to_owned()),
    ];
    let _a = TestApp::spawn_sharing(&app, &jobs).await;
    let _b = TestApp::spawn_sharing(&app, &jobs).await;
    let mut received = Vec::new();
    for _ in 0..100 {
        received = hooks.received_requests().await.unwrap();
        if !received.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let received = hooks.received_requests().await.unwrap_or(received);
    assert_eq!(received.len(), 1, "one digest for both replicas");
    let digest: Value = serde_json::from_slice(&received[0].body).unwrap();
    assert_eq!(digest["event"], "daily_summary", "{digest}");
    assert_eq!(digest["digest"]["reviewsCompleted"], 1);
    assert_eq!(digest["digest"]["lowRatings"], 1);
    assert_eq!(digest["digest"]["lowest"][0]["score"], 84);
    assert_eq!(
        app.sql("SELECT count(*) FROM notification_digest_events WHERE digested_at IS NULL"),
        "0"
    );
    assert_eq!(
        app.sql("SELECT notification_type || ' ' || status FROM notification_history"),
        "daily_summary sent"
    );
}

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

#[tokio::test]
async fn a_delivery_left_pending_by_a_stopped_process_is_taken_up_again() {
    let hooks = receiver(200).await;
    let app = TestApp::spawn().await;
    let url = format!("{}/events", hooks.uri());
    json(
        app.root()
            .await
            .patch(
                "/api/notifications/config",
                json!({ "webhookEnabled": true, "webhookUrls": [url.clone()] }),
            )
            .await,
        StatusCode::OK,
    )
    .await;
    // What a process that stopped after its first attempt leaves behind, and one
    // for a recipient removed since.
    let payload = json!({ "event": "review_failed", "title": "[reviewd] Review failed: svc !1",
        "text": "The review failed.", "url": null, "review": null, "digest": null,
        "createdAt": "2026-11-22T06:00:00Z" });
    for (recipient, attempts) in [(url.as_str(), 1), ("https://gone.example.com/x", 0)] {
        app.sql(&format!(
            "INSERT INTO notification_history (channel, notification_type, recipient, status, attempts, payload, created_at, updated_at) \
             VALUES ('webhook', 'review_failed', '{recipient}', 'pending', {attempts}, '{payload}', now() - interval '1 hour', now() - interval '1 hour')"
        ));
    }
    let _jobs = TestApp::spawn_sharing(
        &app,
        &[
            ("PERIODIC_JOBS_ENABLED", "true".to_owned()),
            ("METRICS_COLLECT_INTERVAL_SECS", "1".to_owned()),
            ("NOTIFY_RESUME_AFTER_SECS", "60".to_owned()),
        ],
    )
    .await;
    let items = settled(&app, 2).await;
    let resumed = items
        .iter()
        .find(|i| i["recipient"] == url.as_str())
        .unwrap();
    assert_eq!(resumed["status"], "sent", "{items:#?}");
    assert_eq!(resumed["attempts"], 2, "went on from its second attempt");
    let gone = items
        .iter()
        .find(|i| i["recipient"] == "https://gone.example.com/x")
        .unwrap();
    assert_eq!(gone["status"], "failed");
    assert!(
        gone["errorMessage"]
            .as_str()
            .unwrap()
            .contains("no longer configured")
    );
    let sent = hooks.received_requests().await.unwrap();
    assert_eq!(sent.len(), 1);
    let body: Value = serde_json::from_slice(&sent[0].body).unwrap();
    assert_eq!(body["event"], "review_failed");
    assert_eq!(body["title"], "[reviewd] Review failed: svc !1");
}
