//! `webhook`: the notification as JSON, POSTed to each configured URL. With a
//! `webhook_secret` the body is signed like GitHub signs its own, with the timestamp
//! bound in to stop replays:
//! `X-Reviewd-Signature: sha256=<hex HMAC-SHA256(secret, "<X-Reviewd-Timestamp>.<body>")>`.

use crate::errors::{from_http, unix_now};
use async_trait::async_trait;
use chrono::{SecondsFormat, Utc};
use reviewd_crypto::hmac_sha256_hex;
use reviewd_domain::model::notification::{Channel, Notification, NotificationConfig, Recipient};
use reviewd_domain::ports::{Notifier, NotifyError};
use reviewd_http::HttpClient;

pub struct WebhookNotifier {
    http: HttpClient,
}

impl WebhookNotifier {
    /// `http` should make one attempt per call ([`crate::single_attempt_client`]).
    #[must_use]
    pub fn new(http: HttpClient) -> Self {
        Self { http }
    }
}

/// The notification as serialised by the domain, plus when it was sent.
fn body(notification: &Notification) -> Result<Vec<u8>, NotifyError> {
    let mut value = serde_json::to_value(notification)
        .map_err(|e| NotifyError::Rejected(format!("cannot serialise: {e}")))?;
    if let Some(object) = value.as_object_mut() {
        object.insert(
            "deliveredAt".into(),
            Utc::now()
                .to_rfc3339_opts(SecondsFormat::Millis, true)
                .into(),
        );
    }
    serde_json::to_vec(&value).map_err(|e| NotifyError::Rejected(format!("cannot serialise: {e}")))
}

/// `sha256=` and the hex HMAC of `"<timestamp>.<body>"`.
#[must_use]
pub(crate) fn signature(secret: &str, timestamp: &str, body: &[u8]) -> String {
    let mut signed = Vec::with_capacity(timestamp.len() + 1 + body.len());
    signed.extend_from_slice(timestamp.as_bytes());
    signed.push(b'.');
    signed.extend_from_slice(body);
    format!("sha256={}", hmac_sha256_hex(secret.as_bytes(), &signed))
}

#[async_trait]
impl Notifier for WebhookNotifier {
    fn channel(&self) -> Channel {
        Channel::Webhook
    }

    async fn send(
        &self,
        config: &NotificationConfig,
        recipient: &Recipient,
        notification: &Notification,
    ) -> Result<(), NotifyError> {
        let Recipient::Url(url) = recipient else {
            return Err(NotifyError::NotConfigured(
                "a webhook delivery needs a URL".into(),
            ));
        };
        if !url::Url::parse(url).is_ok_and(|u| matches!(u.scheme(), "http" | "https")) {
            return Err(NotifyError::Rejected(
                "the webhook URL is not an http(s) URL".into(),
            ));
        }
        let body = body(notification)?;
        let timestamp = unix_now().to_string();
        let secret = config
            .webhook_secret
            .as_ref()
            .map(|s| s.expose())
            .filter(|s| !s.is_empty());
        let signature = secret.map(|s| signature(s, &timestamp, &body));
        self.http
            .send(|c| {
                let request = c
                    .post(url.as_str())
                    .header("Content-Type", "application/json")
                    .header("User-Agent", "reviewd")
                    .header("X-Reviewd-Event", notification.kind.as_str())
                    .header("X-Reviewd-Timestamp", timestamp.as_str())
                    .body(body.clone());
                match &signature {
                    Some(sig) => request.header("X-Reviewd-Signature", sig.as_str()),
                    None => request,
                }
            })
            .await
            .map_err(|e| from_http(e, &[url.as_str(), secret.unwrap_or("")]))?;
        Ok(())
    }
}
