//! `push`: Web Push (RFC 8030) to a browser's subscription: the payload encrypted
//! with `aes128gcm` (RFC 8188/8291) and the sender identified by VAPID (RFC 8292,
//! an ES256 JWT). web-push-native builds the encrypted request; it goes out through
//! the shared [`HttpClient`] (its headers and body copied onto a reqwest request).
//!
//! The VAPID JWT is signed here rather than by web-push-native, whose `aud` leaves
//! out the port of the push service's origin, and whose JWT lifetime is tied to the
//! `TTL` header (push services refuse a JWT valid for more than 24 hours).

use crate::errors::{from_http, required, truncate};
use crate::vapid::decode_b64url;
use async_trait::async_trait;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use reviewd_domain::model::notification::{
    Channel, Notification, NotificationConfig, PushSubscription, Recipient,
};
use reviewd_domain::ports::{Notifier, NotifyError};
use reviewd_http::{HttpClient, HttpError};
use serde_json::json;
use std::time::Duration;
use web_push_native::jwt_simple::algorithms::{
    ECDSAP256KeyPairLike, ECDSAP256PublicKeyLike, ES256KeyPair,
};
use web_push_native::jwt_simple::claims::Claims;
use web_push_native::{Auth, WebPushBuilder, p256};

/// The VAPID subject when none is configured.
pub const DEFAULT_VAPID_SUBJECT: &str = "mailto:reviewd@localhost";

/// How long a push service keeps an undelivered message (the `TTL` header).
const DEFAULT_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// The VAPID JWT's lifetime: below the 24 hours push services accept at most.
const JWT_LIFETIME_SECS: u64 = 12 * 60 * 60;

/// Push services take at most 4096 bytes of encrypted body; the `aes128gcm` header
/// and padding take about a hundred.
const MAX_PLAINTEXT: usize = 3800;

pub struct WebPushNotifier {
    http: HttpClient,
    ttl: Duration,
}

impl WebPushNotifier {
    /// `http` should make one attempt per call ([`crate::single_attempt_client`]).
    #[must_use]
    pub fn new(http: HttpClient) -> Self {
        Self {
            http,
            ttl: DEFAULT_TTL,
        }
    }

    /// How long the push service should hold a message for an offline browser.
    #[must_use]
    pub fn with_ttl(self, ttl: Duration) -> Self {
        Self { ttl, ..self }
    }
}

/// What the service worker receives: `{title, body, url, event}`, cut to fit.
pub(crate) fn payload(n: &Notification) -> Vec<u8> {
    let make = |text: &str| {
        json!({ "title": n.title, "body": text, "url": n.url, "event": n.kind.as_str() })
            .to_string()
            .into_bytes()
    };
    let mut limit = n.text.chars().count();
    loop {
        let bytes = make(&truncate(&n.text, limit));
        if bytes.len() <= MAX_PLAINTEXT || limit == 0 {
            return bytes;
        }
        limit = limit.saturating_sub((bytes.len() - MAX_PLAINTEXT).max(16));
    }
}

struct Vapid {
    key_pair: ES256KeyPair,
    public_key: String,
    subject: String,
}

fn vapid(config: &NotificationConfig) -> Result<Vapid, NotifyError> {
    let private = required(config.vapid_private_key.as_ref(), "the VAPID private key")?;
    let public = config
        .vapid_public_key
        .as_deref()
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .ok_or_else(|| NotifyError::NotConfigured("the VAPID public key is not set".into()))?;
    let key_pair = decode_b64url(private)
        .and_then(|bytes| ES256KeyPair::from_bytes(&bytes).ok())
        .ok_or_else(|| {
            NotifyError::NotConfigured(
                "the VAPID private key is not a base64url P-256 private key".into(),
            )
        })?;
    let derived = key_pair.public_key().public_key().to_bytes_uncompressed();
    if decode_b64url(public).as_deref() != Some(&derived[..]) {
        return Err(NotifyError::NotConfigured(
            "the VAPID public key does not belong to the VAPID private key".into(),
        ));
    }
    let subject = config
        .vapid_subject
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .unwrap_or(DEFAULT_VAPID_SUBJECT)
        .to_owned();
    Ok(Vapid {
        key_pair,
        public_key: URL_SAFE_NO_PAD.encode(derived),
        subject,
    })
}

/// `vapid t=<JWT>, k=<public key>` for the push service at `origin`.
fn authorization(vapid: &Vapid, origin: &str) -> Result<String, NotifyError> {
    let claims = Claims::create(web_push_native::jwt_simple::prelude::Duration::from_secs(
        JWT_LIFETIME_SECS,
    ))
    .with_audience(origin)
    .with_subject(&vapid.subject);
    let token = vapid
        .key_pair
        .sign(claims)
        .map_err(|e| NotifyError::NotConfigured(format!("cannot sign the VAPID JWT: {e}")))?;
    Ok(format!("vapid t={token}, k={}", vapid.public_key))
}

/// The encrypted request for `subscription`, or why the subscription is unusable.
fn encrypted(
    subscription: &PushSubscription,
    ttl: Duration,
    body: Vec<u8>,
) -> Result<http::Request<Vec<u8>>, NotifyError> {
    let bad = |what: &str| NotifyError::Rejected(format!("the subscription's {what} is invalid"));
    let endpoint: http::Uri = subscription.endpoint.parse().map_err(|_| bad("endpoint"))?;
    let ua_public = decode_b64url(&subscription.p256dh)
        .and_then(|b| p256::PublicKey::from_sec1_bytes(&b).ok())
        .ok_or_else(|| bad("p256dh key"))?;
    let auth = decode_b64url(&subscription.auth)
        .filter(|b| b.len() == 16)
        .map(|b| Auth::clone_from_slice(&b))
        .ok_or_else(|| bad("auth secret"))?;
    WebPushBuilder::new(endpoint, ua_public, auth)
        .with_valid_duration(ttl)
        .build(body)
        .map_err(|e| NotifyError::Rejected(format!("cannot encrypt the payload: {e}")))
}

#[async_trait]
impl Notifier for WebPushNotifier {
    fn channel(&self) -> Channel {
        Channel::Push
    }

    async fn send(
        &self,
        config: &NotificationConfig,
        recipient: &Recipient,
        notification: &Notification,
    ) -> Result<(), NotifyError> {
        let Recipient::Push(subscription) = recipient else {
            return Err(NotifyError::NotConfigured(
                "a push delivery needs a subscription".into(),
            ));
        };
        let vapid = vapid(config)?;
        let endpoint = url::Url::parse(&subscription.endpoint)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .ok_or_else(|| {
                NotifyError::Rejected("the subscription's endpoint is invalid".into())
            })?;
        let authorization = authorization(&vapid, &endpoint.origin().ascii_serialization())?;
        let request = encrypted(subscription, self.ttl, payload(notification))?;
        let result = self
            .http
            .send(|c| {
                let mut r = c.post(endpoint.as_str());
                for (name, value) in request.headers() {
                    // reqwest sets the length from the body itself.
                    if name != http::header::CONTENT_LENGTH {
                        r = r.header(name, value);
                    }
                }
                r.header("Authorization", authorization.as_str())
                    .header("Urgency", "normal")
                    .body(request.body().clone())
            })
            .await;
        match result {
            Ok(_) => Ok(()),
            Err(HttpError::Status {
                status: status @ (404 | 410),
                ..
            }) => Err(NotifyError::Gone(status)),
            // Only the status: the endpoint is supplied by any signed-in user, so its
            // answer's body is not shown back (it could be an internal service's).
            Err(HttpError::Status {
                status,
                message,
                rate_limited,
                retry_after,
            }) => Err(from_http(
                HttpError::Status {
                    status,
                    message: format!(
                        "the push service refused the message ({} bytes of answer not shown)",
                        message.len()
                    ),
                    rate_limited,
                    retry_after,
                },
                &[],
            )),
            // The endpoint's path identifies the subscription: keep it out of messages.
            Err(e) => Err(from_http(e, &[subscription.endpoint.as_str()])),
        }
    }
}
