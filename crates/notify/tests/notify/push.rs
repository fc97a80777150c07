//! Web Push: what a push service checks (aes128gcm body, TTL, a VAPID JWT that
//! verifies against the public key, for the right audience), what the browser
//! decrypts, and how a vanished subscription is reported.

use crate::{TEXT, TITLE, URL, header, http, notification, only_request};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::Utc;
use p256::ecdsa::signature::Verifier;
use p256::ecdsa::{Signature, VerifyingKey};
use p256::elliptic_curve::sec1::ToEncodedPoint;
use reviewd_domain::model::SecretString;
use reviewd_domain::model::notification::{
    NotificationConfig, NotificationType, PushSubscription, Recipient,
};
use reviewd_domain::ports::{Notifier, NotifyError, VapidKeyGenerator};
use reviewd_notify::{P256VapidKeys, WebPushNotifier};
use serde_json::{Value, json};
use uuid::Uuid;
use wiremock::matchers::{header as has_header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const SUB_PATH: &str = "/wpush/v2/gAAAAABsub-123";

/// The browser's side of the subscription: its key pair and auth secret.
fn browser_secret() -> p256::SecretKey {
    p256::SecretKey::from_slice(&[0x11; 32]).unwrap()
}
const BROWSER_AUTH: [u8; 16] = [0x22; 16];

pub fn subscription(server: &MockServer) -> Recipient {
    let public = browser_secret().public_key().to_encoded_point(false);
    Recipient::Push(PushSubscription {
        id: Uuid::nil(),
        user_id: None,
        endpoint: format!("{}{SUB_PATH}", server.uri()),
        p256dh: URL_SAFE_NO_PAD.encode(public.as_bytes()),
        auth: URL_SAFE_NO_PAD.encode(BROWSER_AUTH),
        user_agent: None,
        created_at: Utc::now(),
        last_used_at: None,
        expires_at: None,
    })
}

pub fn vapid_config() -> NotificationConfig {
    let keys = P256VapidKeys.generate().unwrap();
    NotificationConfig {
        vapid_public_key: Some(keys.public_key),
        vapid_private_key: Some(keys.private_key),
        ..NotificationConfig::default()
    }
}

async fn push_service(status: u16) -> MockServer {
    let server = MockServer::start().await;
    // Only a request a push service would accept gets the chosen answer; anything
    // else falls through to wiremock's 404 (which the adapter reports as Gone).
    Mock::given(method("POST"))
        .and(path(SUB_PATH))
        .and(has_header("content-encoding", "aes128gcm"))
        .and(has_header("ttl", "86400"))
        .and(has_header("urgency", "normal"))
        .respond_with(ResponseTemplate::new(status))
        .mount(&server)
        .await;
    server
}

fn decode(part: &str) -> Vec<u8> {
    URL_SAFE_NO_PAD.decode(part).unwrap()
}

#[tokio::test]
async fn the_push_service_gets_an_encrypted_body_and_a_valid_vapid_jwt() {
    let server = push_service(201).await;
    let mut config = vapid_config();
    config.vapid_subject = Some("mailto:ops@reviewd.example.com".into());
    WebPushNotifier::new(http())
        .send(
            &config,
            &subscription(&server),
            &notification(NotificationType::ReviewCompleted),
        )
        .await
        .unwrap();
    let request = only_request(&server).await;
    assert_eq!(
        header(&request, "content-type"),
        Some("application/octet-stream")
    );

    // Authorization: vapid t=<JWT>, k=<public key>
    let authorization = header(&request, "authorization").unwrap();
    let rest = authorization.strip_prefix("vapid t=").unwrap();
    let (jwt, k) = rest.split_once(", k=").unwrap();
    assert_eq!(Some(k), config.vapid_public_key.as_deref());

    let parts: Vec<&str> = jwt.split('.').collect();
    assert_eq!(parts.len(), 3);
    let jwt_header: Value = serde_json::from_slice(&decode(parts[0])).unwrap();
    assert_eq!(jwt_header["alg"], "ES256");
    let key = VerifyingKey::from_sec1_bytes(&decode(k)).unwrap();
    let signature = Signature::from_slice(&decode(parts[2])).unwrap();
    key.verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature)
        .expect("the JWT verifies against the VAPID public key");

    let claims: Value = serde_json::from_slice(&decode(parts[1])).unwrap();
    assert_eq!(claims["aud"], server.uri(), "aud is the endpoint's origin");
    assert_eq!(claims["sub"], "mailto:ops@reviewd.example.com");
    let exp = claims["exp"].as_i64().unwrap();
    let now = Utc::now().timestamp();
    assert!(exp > now && exp <= now + 24 * 3600, "exp {exp}, now {now}");

    // The body is ciphertext, and the browser's keys open it.
    let plaintext_title = TITLE.as_bytes();
    assert!(
        !request
            .body
            .windows(plaintext_title.len())
            .any(|w| w == plaintext_title)
    );
    let opened = web_push_native::decrypt(
        request.body.clone(),
        &browser_secret(),
        &web_push_native::Auth::clone_from_slice(&BROWSER_AUTH),
    )
    .unwrap();
    let payload: Value = serde_json::from_slice(&opened).unwrap();
    assert_eq!(
        payload,
        json!({ "title": TITLE, "body": TEXT, "url": URL, "event": "review_completed" })
    );
}

#[tokio::test]
async fn the_default_subject_is_used_when_none_is_set() {
    let server = push_service(201).await;
    WebPushNotifier::new(http())
        .send(
            &vapid_config(),
            &subscription(&server),
            &notification(NotificationType::DailySummary),
        )
        .await
        .unwrap();
    let request = only_request(&server).await;
    let jwt = header(&request, "authorization")
        .unwrap()
        .strip_prefix("vapid t=")
        .unwrap()
        .split(", k=")
        .next()
        .unwrap()
        .to_owned();
    let claims: Value = serde_json::from_slice(&decode(jwt.split('.').nth(1).unwrap())).unwrap();
    assert_eq!(claims["sub"], "mailto:reviewd@localhost");
}

#[tokio::test]
async fn a_vanished_subscription_is_gone() {
    for status in [410, 404] {
        let server = push_service(status).await;
        let err = WebPushNotifier::new(http())
            .send(
                &vapid_config(),
                &subscription(&server),
                &notification(NotificationType::ReviewCompleted),
            )
            .await
            .unwrap_err();
        assert_eq!(err, NotifyError::Gone(status));
    }
}

#[tokio::test]
async fn other_answers_are_rejected_or_unavailable() {
    for (status, retryable) in [(429, true), (503, true), (400, false), (413, false)] {
        let server = push_service(status).await;
        let err = WebPushNotifier::new(http())
            .send(
                &vapid_config(),
                &subscription(&server),
                &notification(NotificationType::ReviewCompleted),
            )
            .await
            .unwrap_err();
        assert_eq!(err.retryable(), retryable, "{status}: {err:?}");
        assert!(!matches!(err, NotifyError::Gone(_)));
    }
}

#[tokio::test]
async fn vapid_keys_must_be_set_and_belong_together() {
    let server = push_service(201).await;
    let n = notification(NotificationType::ReviewCompleted);
    let notifier = WebPushNotifier::new(http());

    let err = notifier
        .send(&NotificationConfig::default(), &subscription(&server), &n)
        .await
        .unwrap_err();
    assert!(matches!(err, NotifyError::NotConfigured(_)), "{err:?}");

    let mut mismatched = vapid_config();
    mismatched.vapid_public_key = vapid_config().vapid_public_key;
    let err = notifier
        .send(&mismatched, &subscription(&server), &n)
        .await
        .unwrap_err();
    assert!(matches!(err, NotifyError::NotConfigured(_)), "{err:?}");

    let mut garbage = vapid_config();
    garbage.vapid_private_key = Some(SecretString::new("not-a-key"));
    let err = notifier
        .send(&garbage, &subscription(&server), &n)
        .await
        .unwrap_err();
    assert!(matches!(err, NotifyError::NotConfigured(_)), "{err:?}");
    assert!(!err.to_string().contains("not-a-key"));

    assert!(server.received_requests().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_subscription_with_broken_keys_is_rejected() {
    let server = push_service(201).await;
    let Recipient::Push(mut sub) = subscription(&server) else {
        unreachable!()
    };
    sub.p256dh = URL_SAFE_NO_PAD.encode([4u8; 65]);
    let err = WebPushNotifier::new(http())
        .send(
            &vapid_config(),
            &Recipient::Push(sub),
            &notification(NotificationType::ReviewCompleted),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, NotifyError::Rejected(_)), "{err:?}");
}

#[test]
fn generated_vapid_keys_decode_to_a_p256_pair() {
    let keys = P256VapidKeys.generate().unwrap();
    let public = decode(&keys.public_key);
    assert_eq!(public.len(), 65);
    assert_eq!(public[0], 0x04);
    let private = decode(keys.private_key.expose());
    let secret = p256::SecretKey::from_slice(&private).unwrap();
    assert_eq!(
        secret.public_key().to_encoded_point(false).as_bytes(),
        &public[..]
    );
}
