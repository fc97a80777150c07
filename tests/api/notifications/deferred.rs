//! Deliveries not sent at once: a daily digest sent by one replica, a pending delivery
//! taken up again.

use super::{receiver, settled};
use crate::helpers::{TestApp, json};
use crate::review_pipeline::{
    app_with_ai, fake_ai, fixture, gitlab_with_one_mr, review_answer, send_webhook, setup_project,
    wait_for,
};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::time::Duration;

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
