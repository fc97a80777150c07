//! Outbound webhooks: the JSON body, the headers, and a signature a receiver can
//! verify by recomputing the HMAC.

use crate::{URL, header, http, notification, only_request};
use reviewd_crypto::hmac_sha256_hex;
use reviewd_domain::model::SecretString;
use reviewd_domain::model::notification::{NotificationConfig, NotificationType, Recipient};
use reviewd_domain::ports::{Notifier, NotifyError};
use reviewd_notify::WebhookNotifier;
use serde_json::Value;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

async fn receiver(status: u16) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/hooks/reviewd"))
        .respond_with(ResponseTemplate::new(status))
        .mount(&server)
        .await;
    server
}

#[tokio::test]
async fn a_signed_delivery_verifies_against_timestamp_and_body() {
    let server = receiver(200).await;
    let config = NotificationConfig {
        webhook_secret: Some(SecretString::new("whsec-test")),
        ..NotificationConfig::default()
    };
    let to = Recipient::Url(format!("{}/hooks/reviewd", server.uri()));
    WebhookNotifier::new(http())
        .send(&config, &to, &notification(NotificationType::RatingLow))
        .await
        .unwrap();

    let request = only_request(&server).await;
    assert_eq!(header(&request, "content-type"), Some("application/json"));
    assert_eq!(header(&request, "user-agent"), Some("reviewd"));
    assert_eq!(header(&request, "x-reviewd-event"), Some("rating_low"));
    let timestamp = header(&request, "x-reviewd-timestamp").unwrap();
    let sent_at: i64 = timestamp.parse().unwrap();
    assert!((chrono::Utc::now().timestamp() - sent_at).abs() < 60);

    // What a receiver does: HMAC over "<timestamp>.<raw body>" with the shared secret.
    let mut signed = format!("{timestamp}.").into_bytes();
    signed.extend_from_slice(&request.body);
    let expected = format!("sha256={}", hmac_sha256_hex(b"whsec-test", &signed));
    assert_eq!(
        header(&request, "x-reviewd-signature"),
        Some(expected.as_str())
    );

    let body: Value = request.body_json().unwrap();
    assert_eq!(body["event"], "rating_low");
    assert_eq!(body["title"], crate::TITLE);
    assert_eq!(body["text"], crate::TEXT);
    assert_eq!(body["url"], URL);
    assert_eq!(body["createdAt"], "2026-01-02T03:04:05Z");
    assert!(body["deliveredAt"].as_str().unwrap().ends_with('Z'));
    assert!(body.get("review").is_some() && body.get("digest").is_some());
}

#[tokio::test]
async fn without_a_secret_there_is_no_signature() {
    let server = receiver(204).await;
    let to = Recipient::Url(format!("{}/hooks/reviewd", server.uri()));
    WebhookNotifier::new(http())
        .send(
            &NotificationConfig::default(),
            &to,
            &notification(NotificationType::ReviewFailed),
        )
        .await
        .unwrap();
    let request = only_request(&server).await;
    assert_eq!(header(&request, "x-reviewd-event"), Some("review_failed"));
    assert!(header(&request, "x-reviewd-timestamp").is_some());
    assert!(request.headers.get("x-reviewd-signature").is_none());
}

#[tokio::test]
async fn refusals_and_outages_are_told_apart() {
    let n = notification(NotificationType::ReviewCompleted);
    let config = NotificationConfig::default();
    for (status, retryable) in [
        (500, true),
        (503, true),
        (429, true),
        (404, false),
        (401, false),
    ] {
        let server = receiver(status).await;
        let to = Recipient::Url(format!("{}/hooks/reviewd", server.uri()));
        let err = WebhookNotifier::new(http())
            .send(&config, &to, &n)
            .await
            .unwrap_err();
        assert_eq!(err.retryable(), retryable, "{status}: {err:?}");
        assert!(err.to_string().contains(&status.to_string()), "{err}");
    }
}

#[tokio::test]
async fn a_refused_connection_is_unavailable_and_keeps_the_url_token_out() {
    let port = crate::closed_port();
    let to = Recipient::Url(format!(
        "http://127.0.0.1:{port}/hook/tok-s3cret?key=qs-s3cret"
    ));
    let err = WebhookNotifier::new(http())
        .send(
            &NotificationConfig::default(),
            &to,
            &notification(NotificationType::ReviewCompleted),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, NotifyError::Unavailable(_)), "{err:?}");
    assert!(!err.to_string().contains("s3cret"), "{err}");
}

#[tokio::test]
async fn a_recipient_that_is_not_a_url_is_not_configured() {
    let err = WebhookNotifier::new(http())
        .send(
            &NotificationConfig::default(),
            &Recipient::None,
            &notification(NotificationType::ReviewCompleted),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, NotifyError::NotConfigured(_)), "{err:?}");
    let err = WebhookNotifier::new(http())
        .send(
            &NotificationConfig::default(),
            &Recipient::Url("ftp://example.com/x".into()),
            &notification(NotificationType::ReviewCompleted),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, NotifyError::Rejected(_)), "{err:?}");
}
