//! chatB (Discord): an embed coloured by the event, to the configured webhook.

use crate::{TEXT, TITLE, URL, header, http, notification, only_request};
use reviewd_domain::model::SecretString;
use reviewd_domain::model::notification::{NotificationConfig, NotificationType, Recipient};
use reviewd_domain::ports::{Notifier, NotifyError};
use reviewd_notify::DiscordNotifier;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const HOOK_PATH: &str = "/api/webhooks/1234/d1sc0rd-t0ken";

async fn discord(status: u16) -> (MockServer, NotificationConfig) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(HOOK_PATH))
        .respond_with(ResponseTemplate::new(status))
        .mount(&server)
        .await;
    let config = NotificationConfig {
        discord_webhook_url: Some(SecretString::new(format!("{}{HOOK_PATH}", server.uri()))),
        ..NotificationConfig::default()
    };
    (server, config)
}

#[tokio::test]
async fn posts_an_embed_coloured_by_the_event() {
    let cases = [
        (NotificationType::ReviewCompleted, 0x2E_CC_71),
        (NotificationType::ReviewFailed, 0xE7_4C_3C),
        (NotificationType::RatingLow, 0xF3_9C_12),
        (NotificationType::DailySummary, 0x34_98_DB),
        (NotificationType::WeeklySummary, 0x34_98_DB),
    ];
    for (kind, color) in cases {
        let (server, config) = discord(204).await;
        DiscordNotifier::new(http())
            .send(&config, &Recipient::Configured, &notification(kind))
            .await
            .unwrap();
        let request = only_request(&server).await;
        assert_eq!(header(&request, "content-type"), Some("application/json"));
        let body: Value = request.body_json().unwrap();
        assert_eq!(
            body,
            json!({
                "content": TITLE,
                "embeds": [{ "title": TITLE, "description": TEXT, "url": URL, "color": color }],
                "allowed_mentions": { "parse": [] },
            }),
            "{kind:?}"
        );
    }
}

#[tokio::test]
async fn without_a_link_the_embed_has_no_url() {
    let (server, config) = discord(200).await;
    let mut n = notification(NotificationType::ReviewFailed);
    n.url = None;
    DiscordNotifier::new(http())
        .send(&config, &Recipient::Configured, &n)
        .await
        .unwrap();
    let body: Value = only_request(&server).await.body_json().unwrap();
    assert!(body["embeds"][0].get("url").is_none());
}

#[tokio::test]
async fn failures_never_show_the_webhook_token() {
    for (status, retryable) in [(500, true), (429, true), (400, false), (404, false)] {
        let (_server, config) = discord(status).await;
        let err = DiscordNotifier::new(http())
            .send(
                &config,
                &Recipient::Configured,
                &notification(NotificationType::ReviewCompleted),
            )
            .await
            .unwrap_err();
        assert_eq!(err.retryable(), retryable, "{status}");
        assert!(!err.to_string().contains("d1sc0rd-t0ken"), "{err}");
    }
    let config = NotificationConfig {
        discord_webhook_url: Some(SecretString::new(format!(
            "http://127.0.0.1:{}{HOOK_PATH}",
            crate::closed_port()
        ))),
        ..NotificationConfig::default()
    };
    let err = DiscordNotifier::new(http())
        .send(
            &config,
            &Recipient::Configured,
            &notification(NotificationType::ReviewCompleted),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, NotifyError::Unavailable(_)), "{err:?}");
    assert!(!err.to_string().contains("d1sc0rd-t0ken"), "{err}");
}

#[tokio::test]
async fn without_a_webhook_url_it_is_not_configured() {
    let err = DiscordNotifier::new(http())
        .send(
            &NotificationConfig::default(),
            &Recipient::Configured,
            &notification(NotificationType::ReviewCompleted),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, NotifyError::NotConfigured(_)), "{err:?}");
}
