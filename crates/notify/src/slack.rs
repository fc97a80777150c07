//! `chatA`: Slack Web API `chat.postMessage` with a bot token, one call per channel.
//! Slack reports most failures as HTTP 200 with `{"ok": false, "error": "..."}`.

use crate::errors::{from_http, required, scrub, truncate};
use async_trait::async_trait;
use reviewd_domain::model::notification::{Channel, Notification, NotificationConfig, Recipient};
use reviewd_domain::ports::{Notifier, NotifyError};
use reviewd_http::HttpClient;
use serde::Deserialize;
use serde_json::{Value, json};

/// Where the Slack Web API lives.
pub const SLACK_API_BASE: &str = "https://slack.com";

/// A section block's text may hold at most 3000 characters.
const SECTION_MAX: usize = 3000;

/// Slack errors that mean "try again later" rather than "this will never work".
const TRANSIENT: &[&str] = &[
    "ratelimited",
    "rate_limited",
    "internal_error",
    "fatal_error",
    "service_unavailable",
    "request_timeout",
];

pub struct SlackNotifier {
    http: HttpClient,
    base: String,
}

impl SlackNotifier {
    /// `base` is the API origin: [`SLACK_API_BASE`], or a fake server in tests.
    /// `http` should make one attempt per call ([`crate::single_attempt_client`]).
    #[must_use]
    pub fn new(http: HttpClient, base: &str) -> Self {
        Self {
            http,
            base: base.trim_end_matches('/').to_owned(),
        }
    }
}

#[derive(Deserialize)]
struct SlackAnswer {
    ok: bool,
    error: Option<String>,
}

/// Slack's mrkdwn treats `&`, `<` and `>` as control characters.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

pub(crate) fn message(channel: &str, n: &Notification) -> Value {
    let mut mrkdwn = format!("*{}*\n{}", escape(&n.title), escape(&n.text));
    if let Some(url) = &n.url {
        mrkdwn.push_str(&format!("\n<{url}|Open in reviewd>"));
    }
    // The top-level text is the notification fallback; Slack parses it as mrkdwn too.
    let mut text = format!("{}\n{}", escape(&n.title), escape(&n.text));
    if let Some(url) = &n.url {
        text.push_str(&format!("\n{url}"));
    }
    json!({
        "channel": channel,
        "text": text,
        "blocks": [{
            "type": "section",
            "text": { "type": "mrkdwn", "text": truncate(&mrkdwn, SECTION_MAX) },
        }],
        "unfurl_links": false,
    })
}

#[async_trait]
impl Notifier for SlackNotifier {
    fn channel(&self) -> Channel {
        Channel::Slack
    }

    async fn send(
        &self,
        config: &NotificationConfig,
        recipient: &Recipient,
        notification: &Notification,
    ) -> Result<(), NotifyError> {
        let Recipient::ChatChannel(channel) = recipient else {
            return Err(NotifyError::NotConfigured(
                "a chatA delivery needs a channel id".into(),
            ));
        };
        let token = required(config.slack_bot_token.as_ref(), "the chatA bot token")?;
        let url = format!("{}/api/chat.postMessage", self.base);
        let body = message(channel, notification);
        let response = self
            .http
            .send(|c| {
                c.post(&url)
                    .bearer_auth(token)
                    .header("Content-Type", "application/json; charset=utf-8")
                    .body(body.to_string())
            })
            .await
            .map_err(|e| from_http(e, &[token]))?;
        let answer: SlackAnswer = response.json().map_err(|_| {
            NotifyError::Unavailable("Slack answered with something other than JSON".into())
        })?;
        if answer.ok {
            return Ok(());
        }
        let error = scrub(answer.error.as_deref().unwrap_or("unknown_error"), &[token]);
        if TRANSIENT.contains(&error.as_str()) {
            Err(NotifyError::Unavailable(error))
        } else {
            Err(NotifyError::Rejected(error))
        }
    }
}
