//! chatD (Feishu/Lark custom bot): a text message, signed when a secret is set,
//! and Feishu's `code` in a 200 answer.

use crate::{TEXT, TITLE, URL, http, notification, only_request};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use reviewd_domain::model::SecretString;
use reviewd_domain::model::notification::{NotificationConfig, NotificationType, Recipient};
use reviewd_domain::ports::{Notifier, NotifyError};
use reviewd_notify::FeishuNotifier;
use serde_json::{Value, json};
use sha2::Sha256;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const HOOK_PATH: &str = "/open-apis/bot/v2/hook/f3ishu-hook-id";

async fn feishu(answer: Value, secret: Option<&str>) -> (MockServer, NotificationConfig) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(HOOK_PATH))
        .respond_with(ResponseTemplate::new(200).set_body_json(answer))
        .mount(&server)
        .await;
    let config = NotificationConfig {
        feishu_webhook_url: Some(SecretString::new(format!("{}{HOOK_PATH}", server.uri()))),
        feishu_secret: secret.map(SecretString::new),
        ..NotificationConfig::default()
    };
    (server, config)
}

async fn send(config: &NotificationConfig) -> Result<(), NotifyError> {
    FeishuNotifier::new(http())
        .send(
            config,
            &Recipient::Configured,
            &notification(NotificationType::ReviewCompleted),
        )
        .await
}

fn success() -> Value {
    json!({ "code": 0, "msg": "success", "data": {} })
}

#[tokio::test]
async fn a_signed_text_message_verifies_as_feishu_checks_it() {
    let (server, config) = feishu(success(), Some("f3ishu-secret")).await;
    send(&config).await.unwrap();

    let body: Value = only_request(&server).await.body_json().unwrap();
    assert_eq!(body["msg_type"], "text");
    assert_eq!(
        body["content"],
        json!({ "text": format!("{TITLE}\n{TEXT}\n{URL}") })
    );
    let timestamp = body["timestamp"].as_str().expect("timestamp is a string");
    let sent_at: i64 = timestamp.parse().unwrap();
    assert!((chrono::Utc::now().timestamp() - sent_at).abs() < 60);

    // Feishu's check: HMAC-SHA256 keyed by "<timestamp>\n<secret>" over nothing, base64.
    let mac =
        <Hmac<Sha256> as KeyInit>::new_from_slice(format!("{timestamp}\nf3ishu-secret").as_bytes())
            .unwrap();
    let expected = STANDARD.encode(mac.finalize().into_bytes());
    assert_eq!(body["sign"], expected);
}

#[tokio::test]
async fn without_a_secret_the_message_is_unsigned() {
    let (server, config) = feishu(success(), None).await;
    send(&config).await.unwrap();
    let body: Value = only_request(&server).await.body_json().unwrap();
    assert_eq!(
        body,
        json!({ "msg_type": "text", "content": { "text": format!("{TITLE}\n{TEXT}\n{URL}") } })
    );
}

#[tokio::test]
async fn a_non_zero_code_is_rejected_with_feishus_message() {
    let (_server, config) = feishu(
        json!({ "code": 19021, "msg": "sign match fail or timestamp is not within one hour from current time", "data": {} }),
        Some("wrong"),
    )
    .await;
    let err = send(&config).await.unwrap_err();
    let NotifyError::Rejected(message) = &err else {
        panic!("{err:?}")
    };
    assert!(
        message.contains("19021") && message.contains("sign match fail"),
        "{message}"
    );
    assert!(!message.contains("f3ishu-hook-id"), "{message}");
}

#[tokio::test]
async fn frequency_limits_are_worth_another_attempt() {
    for code in [11232, 9499] {
        let (_server, config) =
            feishu(json!({ "code": code, "msg": "frequency limited" }), None).await;
        let err = send(&config).await.unwrap_err();
        assert!(
            matches!(err, NotifyError::Unavailable(_)),
            "{code}: {err:?}"
        );
    }
}

#[tokio::test]
async fn the_older_status_code_answer_is_understood() {
    let (_server, config) =
        feishu(json!({ "StatusCode": 0, "StatusMessage": "success" }), None).await;
    send(&config).await.unwrap();
}
