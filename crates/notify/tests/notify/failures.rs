//! What every HTTP adapter does with an outage, a slow receiver and a refusal: the
//! notification service retries `Unavailable` and gives up on `Rejected`.

use crate::{http, impatient_http, notification};
use reviewd_domain::model::SecretString;
use reviewd_domain::model::notification::{NotificationConfig, NotificationType, Recipient};
use reviewd_domain::ports::{Notifier, NotifyError};
use reviewd_http::HttpClient;
use reviewd_notify::{
    DiscordNotifier, FeishuNotifier, SlackNotifier, TeamsNotifier, WebPushNotifier, WebhookNotifier,
};
use std::time::{Duration, Instant};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, ResponseTemplate};

/// Each HTTP adapter, set up to deliver to `server`.
fn adapters(
    server: &MockServer,
    client: &HttpClient,
) -> Vec<(
    &'static str,
    Box<dyn Notifier>,
    NotificationConfig,
    Recipient,
)> {
    let uri = server.uri();
    let hook = |path: &str| Some(SecretString::new(format!("{uri}{path}")));
    vec![
        (
            "webhook",
            Box::new(WebhookNotifier::new(client.clone())),
            NotificationConfig::default(),
            Recipient::Url(format!("{uri}/hook")),
        ),
        (
            "chatA",
            Box::new(SlackNotifier::new(client.clone(), &uri)),
            NotificationConfig {
                slack_bot_token: Some(SecretString::new("xoxb-t")),
                ..NotificationConfig::default()
            },
            Recipient::ChatChannel("C1".into()),
        ),
        (
            "chatB",
            Box::new(DiscordNotifier::new(client.clone())),
            NotificationConfig {
                discord_webhook_url: hook("/api/webhooks/1/t"),
                ..NotificationConfig::default()
            },
            Recipient::Configured,
        ),
        (
            "chatC",
            Box::new(TeamsNotifier::new(client.clone())),
            NotificationConfig {
                teams_webhook_url: hook("/teams?sig=s"),
                ..NotificationConfig::default()
            },
            Recipient::Configured,
        ),
        (
            "chatD",
            Box::new(FeishuNotifier::new(client.clone())),
            NotificationConfig {
                feishu_webhook_url: hook("/open-apis/bot/v2/hook/x"),
                ..NotificationConfig::default()
            },
            Recipient::Configured,
        ),
        (
            "push",
            Box::new(WebPushNotifier::new(client.clone())),
            crate::push::vapid_config(),
            crate::push::subscription(server),
        ),
    ]
}

async fn server(answer: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(any()).respond_with(answer).mount(&server).await;
    server
}

#[tokio::test]
async fn a_server_error_is_unavailable_everywhere() {
    let server = server(ResponseTemplate::new(500).set_body_string("boom")).await;
    let n = notification(NotificationType::ReviewFailed);
    for (name, notifier, config, to) in adapters(&server, &http()) {
        let err = notifier.send(&config, &to, &n).await.unwrap_err();
        assert!(
            matches!(err, NotifyError::Unavailable(_)),
            "{name}: {err:?}"
        );
    }
    // One attempt each: the service, not the adapter, retries.
    assert_eq!(server.received_requests().await.unwrap().len(), 6);
}

#[tokio::test]
async fn a_bad_request_is_rejected_everywhere() {
    let server = server(ResponseTemplate::new(400).set_body_string("bad payload")).await;
    let n = notification(NotificationType::ReviewCompleted);
    for (name, notifier, config, to) in adapters(&server, &http()) {
        let err = notifier.send(&config, &to, &n).await.unwrap_err();
        assert!(matches!(err, NotifyError::Rejected(_)), "{name}: {err:?}");
    }
}

#[tokio::test]
async fn an_answer_past_the_timeout_is_unavailable_everywhere() {
    let server = server(ResponseTemplate::new(200).set_delay(Duration::from_secs(3))).await;
    let n = notification(NotificationType::RatingLow);
    for (name, notifier, config, to) in adapters(&server, &impatient_http()) {
        let started = Instant::now();
        let err = notifier.send(&config, &to, &n).await.unwrap_err();
        assert!(
            matches!(err, NotifyError::Unavailable(_)),
            "{name}: {err:?}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{name} waited too long"
        );
    }
}

#[tokio::test]
async fn all_seven_channels_are_built() {
    let all =
        reviewd_notify::notifiers(Duration::from_secs(5), reviewd_notify::SLACK_API_BASE).unwrap();
    assert_eq!(all.len(), 7);
}
