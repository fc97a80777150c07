//! `chatB`: a Discord incoming webhook, one embed coloured by the kind of event.
//! The webhook URL embeds its token, so it is treated as a secret throughout.

use crate::errors::{from_http, required, truncate};
use async_trait::async_trait;
use reviewd_domain::model::notification::{
    Channel, Notification, NotificationConfig, NotificationType, Recipient,
};
use reviewd_domain::ports::{Notifier, NotifyError};
use reviewd_http::HttpClient;
use serde_json::{Value, json};

pub struct DiscordNotifier {
    http: HttpClient,
}

impl DiscordNotifier {
    /// `http` should make one attempt per call ([`crate::single_attempt_client`]).
    #[must_use]
    pub fn new(http: HttpClient) -> Self {
        Self { http }
    }
}

/// Green for a completed review, red for a failure, amber for a low rating, blue for
/// the digests.
#[must_use]
pub(crate) fn color(kind: NotificationType) -> u32 {
    match kind {
        NotificationType::ReviewCompleted => 0x2E_CC_71,
        NotificationType::ReviewFailed => 0xE7_4C_3C,
        NotificationType::RatingLow => 0xF3_9C_12,
        NotificationType::DailySummary | NotificationType::WeeklySummary => 0x34_98_DB,
    }
}

pub(crate) fn message(n: &Notification) -> Value {
    // Discord's limits: content 2000, embed title 256, description 4096 characters.
    let mut embed = json!({
        "title": truncate(&n.title, 256),
        "description": truncate(&n.text, 4096),
        "color": color(n.kind),
    });
    if let Some(url) = &n.url {
        embed["url"] = json!(url);
    }
    json!({
        "content": truncate(&n.title, 2000),
        "embeds": [embed],
        // MR titles are user text: never let them ping @everyone or a role.
        "allowed_mentions": { "parse": [] },
    })
}

#[async_trait]
impl Notifier for DiscordNotifier {
    fn channel(&self) -> Channel {
        Channel::Discord
    }

    /// Goes to the configured webhook whatever the recipient says.
    async fn send(
        &self,
        config: &NotificationConfig,
        _recipient: &Recipient,
        notification: &Notification,
    ) -> Result<(), NotifyError> {
        let url = required(config.discord_webhook_url.as_ref(), "the chatB webhook URL")?;
        let body = message(notification);
        self.http
            .send(|c| c.post(url).json(&body))
            .await
            .map_err(|e| from_http(e, &[url]))?;
        Ok(())
    }
}
