//! Notifications end to end: settings with masked secrets, test deliveries, VAPID
//! keys, dispatch after real reviews to every channel (fake SMTP, webhook, Slack,
//! Discord, Teams, Feishu and push endpoints), failures that do not stop the other
//! channels, history and statistics, digests, and push subscriptions.
//!
//! This module holds the fake receivers and polling the cases share; each child is
//! one topic.

mod deferred;
mod dispatch;
mod push;
mod settings;

use crate::helpers::{TestApp, json};
use reqwest::StatusCode;
use reviewd_domain::ports::VapidKeyGenerator;
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

/// Polls the history until no delivery is pending (for up to a minute: on a loaded
/// 2-core machine a debug build's deliveries, push encryption included, can take
/// several times the 5 s they take alone).
async fn settled(app: &TestApp, expected: usize) -> Vec<Value> {
    let root = app.root().await;
    let mut items = Vec::new();
    for _ in 0..600 {
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
