//! chatA (Slack): `chat.postMessage` with the bot token, and Slack's way of
//! reporting failures inside a 200.

use crate::{TEXT, TITLE, URL, header, http, notification, only_request};
use reviewd_domain::model::SecretString;
use reviewd_domain::model::notification::{NotificationConfig, NotificationType, Recipient};
use reviewd_domain::ports::{Notifier, NotifyError};
use reviewd_notify::SlackNotifier;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const TOKEN: &str = "xoxb-1-test-token";

fn config() -> NotificationConfig {
    NotificationConfig {
        slack_bot_token: Some(SecretString::new(TOKEN)),
        ..NotificationConfig::default()
    }
}

async fn slack(answer: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/chat.postMessage"))
        .respond_with(answer)
        .mount(&server)
        .await;
    server
}

async fn send(server: &MockServer, config: &NotificationConfig) -> Result<(), NotifyError> {
    SlackNotifier::new(http(), &format!("{}/", server.uri()))
        .send(
            config,
            &Recipient::ChatChannel("C0123456".into()),
            &notification(NotificationType::ReviewCompleted),
        )
        .await
}

#[tokio::test]
async fn posts_a_section_block_to_the_channel_with_the_bot_token() {
    let server = slack(
        ResponseTemplate::new(200)
            .set_body_json(json!({ "ok": true, "channel": "C0123456", "ts": "1.2" })),
    )
    .await;
    send(&server, &config()).await.unwrap();

    let request = only_request(&server).await;
    assert_eq!(
        header(&request, "authorization"),
        Some(format!("Bearer {TOKEN}").as_str())
    );
    assert_eq!(
        header(&request, "content-type"),
        Some("application/json; charset=utf-8")
    );
    let body: Value = request.body_json().unwrap();
    assert_eq!(
        body,
        json!({
            "channel": "C0123456",
            "text": format!("{TITLE}\n{TEXT}\n{URL}"),
            "blocks": [{
                "type": "section",
                "text": { "type": "mrkdwn", "text": format!("*{TITLE}*\n{TEXT}\n<{URL}|Open in reviewd>") },
            }],
            "unfurl_links": false,
        })
    );
}

#[tokio::test]
async fn mrkdwn_control_characters_in_titles_are_escaped() {
    let server = slack(ResponseTemplate::new(200).set_body_json(json!({ "ok": true }))).await;
    let mut n = notification(NotificationType::ReviewFailed);
    n.title = "Fix <script> & co".into();
    n.url = None;
    SlackNotifier::new(http(), &server.uri())
        .send(&config(), &Recipient::ChatChannel("C1".into()), &n)
        .await
        .unwrap();
    let body: Value = only_request(&server).await.body_json().unwrap();
    assert_eq!(
        body["blocks"][0]["text"]["text"],
        format!("*Fix &lt;script&gt; &amp; co*\n{TEXT}")
    );
    assert_eq!(body["text"], format!("Fix &lt;script&gt; &amp; co\n{TEXT}"));
}

#[tokio::test]
async fn ok_false_is_rejected_with_slacks_error() {
    let server = slack(
        ResponseTemplate::new(200)
            .set_body_json(json!({ "ok": false, "error": "channel_not_found" })),
    )
    .await;
    assert_eq!(
        send(&server, &config()).await,
        Err(NotifyError::Rejected("channel_not_found".into()))
    );
}

#[tokio::test]
async fn slack_rate_limits_are_worth_another_attempt() {
    let server = slack(
        ResponseTemplate::new(200).set_body_json(json!({ "ok": false, "error": "ratelimited" })),
    )
    .await;
    assert_eq!(
        send(&server, &config()).await,
        Err(NotifyError::Unavailable("ratelimited".into()))
    );

    let server = slack(
        ResponseTemplate::new(429)
            .insert_header("Retry-After", "30")
            .set_body_json(json!({ "ok": false, "error": "ratelimited" })),
    )
    .await;
    let err = send(&server, &config()).await.unwrap_err();
    assert!(matches!(err, NotifyError::Unavailable(_)), "{err:?}");
}

#[tokio::test]
async fn without_a_bot_token_nothing_is_sent() {
    let server = slack(ResponseTemplate::new(200).set_body_json(json!({ "ok": true }))).await;
    let err = send(&server, &NotificationConfig::default())
        .await
        .unwrap_err();
    assert!(matches!(err, NotifyError::NotConfigured(_)), "{err:?}");
    assert!(server.received_requests().await.unwrap().is_empty());
}
