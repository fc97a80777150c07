//! chatC (Microsoft Teams): a message carrying an Adaptive Card.

use crate::{TEXT, TITLE, URL, http, notification, only_request};
use reviewd_domain::model::SecretString;
use reviewd_domain::model::notification::{NotificationConfig, NotificationType, Recipient};
use reviewd_domain::ports::{Notifier, NotifyError};
use reviewd_notify::TeamsNotifier;
use serde_json::{Value, json};
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

async fn teams(answer: ResponseTemplate) -> (MockServer, NotificationConfig) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/workflows/abc/triggers/manual/paths/invoke"))
        .and(query_param("sig", "t3ams-sig"))
        .respond_with(answer)
        .mount(&server)
        .await;
    let config = NotificationConfig {
        teams_webhook_url: Some(SecretString::new(format!(
            "{}/workflows/abc/triggers/manual/paths/invoke?api-version=1&sig=t3ams-sig",
            server.uri()
        ))),
        ..NotificationConfig::default()
    };
    (server, config)
}

#[tokio::test]
async fn posts_an_adaptive_card_with_an_open_action() {
    let (server, config) = teams(ResponseTemplate::new(202)).await;
    TeamsNotifier::new(http())
        .send(
            &config,
            &Recipient::Configured,
            &notification(NotificationType::ReviewCompleted),
        )
        .await
        .unwrap();
    let body: Value = only_request(&server).await.body_json().unwrap();
    assert_eq!(
        body,
        json!({
            "type": "message",
            "attachments": [{
                "contentType": "application/vnd.microsoft.card.adaptive",
                "content": {
                    "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
                    "type": "AdaptiveCard",
                    "version": "1.4",
                    "body": [
                        { "type": "TextBlock", "text": TITLE, "weight": "Bolder", "size": "Medium", "wrap": true },
                        { "type": "TextBlock", "text": TEXT, "wrap": true },
                    ],
                    "actions": [{ "type": "Action.OpenUrl", "title": "Open", "url": URL }],
                },
            }],
        })
    );
}

#[tokio::test]
async fn without_a_link_the_card_has_no_actions() {
    let (server, config) = teams(ResponseTemplate::new(200).set_body_string("1")).await;
    let mut n = notification(NotificationType::WeeklySummary);
    n.url = None;
    TeamsNotifier::new(http())
        .send(&config, &Recipient::Configured, &n)
        .await
        .unwrap();
    let body: Value = only_request(&server).await.body_json().unwrap();
    assert!(body["attachments"][0]["content"].get("actions").is_none());
}

#[tokio::test]
async fn a_throttled_legacy_connector_is_unavailable() {
    let (_server, config) = teams(ResponseTemplate::new(200).set_body_string(
        "Microsoft Teams endpoint returned HTTP error 429 with ContextId tcid=0.",
    ))
    .await;
    let err = TeamsNotifier::new(http())
        .send(
            &config,
            &Recipient::Configured,
            &notification(NotificationType::ReviewCompleted),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, NotifyError::Unavailable(_)), "{err:?}");
}

#[tokio::test]
async fn failures_never_show_the_webhook_signature() {
    for (status, retryable) in [(502, true), (400, false), (403, false)] {
        let (_server, config) = teams(ResponseTemplate::new(status)).await;
        let err = TeamsNotifier::new(http())
            .send(
                &config,
                &Recipient::Configured,
                &notification(NotificationType::ReviewCompleted),
            )
            .await
            .unwrap_err();
        assert_eq!(err.retryable(), retryable, "{status}");
        assert!(!err.to_string().contains("t3ams-sig"), "{err}");
    }
}
