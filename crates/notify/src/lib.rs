//! reviewd's notification channels: one adapter per [`Channel`], each implementing
//! the domain's [`Notifier`] port, plus [`P256VapidKeys`] for the `VapidKeyGenerator`.
//!
//! | channel   | adapter            | speaks                                                  |
//! |-----------|--------------------|---------------------------------------------------------|
//! | `email`   | [`SmtpNotifier`]   | SMTP (lettre): implicit TLS, or STARTTLS when offered   |
//! | `webhook` | [`WebhookNotifier`]| JSON POST, optionally HMAC-SHA256 signed                |
//! | `chatA`   | [`SlackNotifier`]  | Slack Web API `chat.postMessage` with a bot token       |
//! | `chatB`   | [`DiscordNotifier`]| Discord incoming webhook (an embed)                     |
//! | `chatC`   | [`TeamsNotifier`]  | Microsoft Teams incoming webhook (an Adaptive Card)     |
//! | `chatD`   | [`FeishuNotifier`] | Feishu/Lark custom bot webhook (optionally signed)      |
//! | `push`    | [`WebPushNotifier`]| Web Push: VAPID (ES256) + `aes128gcm` (web-push-native) |
//!
//! Every `send` is one attempt: the domain's notification service retries with
//! backoff and records each attempt, so the HTTP adapters take an [`HttpClient`]
//! whose policy makes a single attempt ([`single_attempt_client`]). Failures map to
//! [`NotifyError`]: a timeout, a connection failure, 408, 429 or 5xx is
//! `Unavailable` (worth another attempt), any other refusal `Rejected`, a missing
//! setting `NotConfigured`, a vanished push subscription `Gone`. Error messages
//! never carry a secret (bot token, webhook URL, SMTP password, signing secret).
//!
//! The adapters do not look at the channel's `enabled` flag: deciding whether to
//! send at all is the service's job (a test delivery may go to a disabled channel).
//!
//! [`Channel`]: reviewd_domain::model::notification::Channel

mod discord;
mod email;
mod errors;
mod feishu;
mod push;
mod slack;
mod teams;
mod vapid;
mod webhook;

pub use discord::DiscordNotifier;
pub use email::SmtpNotifier;
pub use feishu::FeishuNotifier;
pub use push::WebPushNotifier;
pub use slack::{SLACK_API_BASE, SlackNotifier};
pub use teams::TeamsNotifier;
pub use vapid::P256VapidKeys;
pub use webhook::WebhookNotifier;

use reviewd_domain::ports::Notifier;
use reviewd_http::{HttpClient, HttpError, RetryPolicy};
use std::sync::Arc;
use std::time::Duration;

/// An [`HttpClient`] that makes exactly one attempt per call, bounded by `timeout`:
/// what every HTTP adapter here expects (the notification service does the retrying).
///
/// # Errors
/// `Connect` when the TLS backend cannot be initialised.
pub fn single_attempt_client(timeout: Duration) -> Result<HttpClient, HttpError> {
    // Webhook paths are secrets (Discord, Feishu): log lines show hosts only.
    HttpClient::new(RetryPolicy {
        max_attempts: 1,
        timeout,
        ..RetryPolicy::default()
    })
    .map(HttpClient::without_paths_in_logs)
}

/// All seven notifiers, sharing one single-attempt HTTP client. `http_timeout`
/// bounds each HTTP call and each SMTP exchange; `slack_base` is the Slack Web API
/// origin ([`SLACK_API_BASE`] in production).
///
/// # Errors
/// The HTTP client cannot be built (TLS backend initialisation).
pub fn notifiers(
    http_timeout: Duration,
    slack_base: &str,
) -> Result<Vec<Arc<dyn Notifier>>, HttpError> {
    let http = single_attempt_client(http_timeout)?;
    Ok(vec![
        Arc::new(SmtpNotifier::new(http_timeout)),
        Arc::new(WebhookNotifier::new(http.clone())),
        Arc::new(SlackNotifier::new(http.clone(), slack_base)),
        Arc::new(DiscordNotifier::new(http.clone())),
        Arc::new(TeamsNotifier::new(http.clone())),
        Arc::new(FeishuNotifier::new(http.clone())),
        Arc::new(WebPushNotifier::new(http)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use reviewd_domain::model::notification::Channel;

    #[test]
    fn one_notifier_per_channel() {
        let all = notifiers(Duration::from_secs(5), SLACK_API_BASE).unwrap();
        let mut channels: Vec<Channel> = all.iter().map(|n| n.channel()).collect();
        channels.dedup();
        assert_eq!(channels, Channel::ALL);
    }
}
