//! `chatC`: a Microsoft Teams incoming webhook (a Workflows "post to a channel when
//! a webhook request is received" URL, or a legacy connector), carrying an Adaptive
//! Card. The webhook URL embeds its signature, so it is treated as a secret.

use crate::errors::{from_http, required, scrub, truncate};
use async_trait::async_trait;
use reviewd_domain::model::notification::{Channel, Notification, NotificationConfig, Recipient};
use reviewd_domain::ports::{Notifier, NotifyError};
use reviewd_http::HttpClient;
use serde_json::{Value, json};

pub struct TeamsNotifier {
    http: HttpClient,
}

impl TeamsNotifier {
    /// `http` should make one attempt per call ([`crate::single_attempt_client`]).
    #[must_use]
    pub fn new(http: HttpClient) -> Self {
        Self { http }
    }
}

pub(crate) fn message(n: &Notification) -> Value {
    let mut card = json!({
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "type": "AdaptiveCard",
        "version": "1.4",
        "body": [
            { "type": "TextBlock", "text": n.title, "weight": "Bolder", "size": "Medium", "wrap": true },
            { "type": "TextBlock", "text": truncate(&n.text, 20_000), "wrap": true },
        ],
    });
    if let Some(url) = &n.url {
        card["actions"] = json!([{ "type": "Action.OpenUrl", "title": "Open", "url": url }]);
    }
    json!({
        "type": "message",
        "attachments": [{
            "contentType": "application/vnd.microsoft.card.adaptive",
            "content": card,
        }],
    })
}

/// Legacy connectors answer 200 with a text body even when the message was
/// throttled or refused ("Microsoft Teams endpoint returned HTTP error 429 ...").
fn embedded_failure(body: &[u8]) -> Option<u16> {
    let text = String::from_utf8_lossy(body);
    let rest = text.split("returned HTTP error ").nth(1)?;
    rest.get(..3)?.parse().ok()
}

#[async_trait]
impl Notifier for TeamsNotifier {
    fn channel(&self) -> Channel {
        Channel::Teams
    }

    /// Goes to the configured webhook whatever the recipient says.
    async fn send(
        &self,
        config: &NotificationConfig,
        _recipient: &Recipient,
        notification: &Notification,
    ) -> Result<(), NotifyError> {
        let url = required(config.teams_webhook_url.as_ref(), "the chatC webhook URL")?;
        let body = message(notification);
        let response = self
            .http
            .send(|c| c.post(url).json(&body))
            .await
            .map_err(|e| from_http(e, &[url]))?;
        match embedded_failure(&response.body) {
            None => Ok(()),
            Some(status) => {
                let text = scrub(
                    &format!(
                        "Teams: {}",
                        truncate(&String::from_utf8_lossy(&response.body), 300)
                    ),
                    &[url],
                );
                if matches!(status, 408 | 429 | 500..=599) {
                    Err(NotifyError::Unavailable(text))
                } else {
                    Err(NotifyError::Rejected(text))
                }
            }
        }
    }
}
