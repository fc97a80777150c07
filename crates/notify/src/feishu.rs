//! `chatD`: a Feishu/Lark custom bot webhook, a text message. With a signing
//! secret the body carries `timestamp` and `sign` =
//! base64(HMAC-SHA256(key = "<timestamp>\n<secret>", message = "")), as the custom
//! bot's "signature verification" setting expects. Feishu answers HTTP 200 with
//! `{"code": 0}` on success and a non-zero `code` and `msg` otherwise.

use crate::errors::{from_http, required, scrub, unix_now};
use async_trait::async_trait;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use reviewd_domain::model::notification::{Channel, Notification, NotificationConfig, Recipient};
use reviewd_domain::ports::{Notifier, NotifyError};
use reviewd_http::HttpClient;
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::Sha256;

/// Codes Feishu uses for "too many requests": worth another attempt later.
const RATE_LIMITED: &[i64] = &[11232, 9499];

pub struct FeishuNotifier {
    http: HttpClient,
}

impl FeishuNotifier {
    /// `http` should make one attempt per call ([`crate::single_attempt_client`]).
    #[must_use]
    pub fn new(http: HttpClient) -> Self {
        Self { http }
    }
}

/// Feishu's answer; older deployments answer with `StatusCode`/`StatusMessage`.
#[derive(Deserialize)]
struct FeishuAnswer {
    code: Option<i64>,
    msg: Option<String>,
    #[serde(rename = "StatusCode")]
    status_code: Option<i64>,
    #[serde(rename = "StatusMessage")]
    status_message: Option<String>,
}

/// The custom bot's signature of `timestamp` under `secret`.
#[must_use]
pub(crate) fn sign(timestamp: &str, secret: &str) -> String {
    let key = format!("{timestamp}\n{secret}");
    let mac = match <Hmac<Sha256> as KeyInit>::new_from_slice(key.as_bytes()) {
        Ok(mac) => mac,
        Err(_) => unreachable!("HMAC takes keys of any length"),
    };
    STANDARD.encode(mac.finalize().into_bytes())
}

pub(crate) fn message(n: &Notification, secret: Option<&str>) -> Value {
    let mut text = format!("{}\n{}", n.title, n.text);
    if let Some(url) = &n.url {
        text.push('\n');
        text.push_str(url);
    }
    let mut body = json!({ "msg_type": "text", "content": { "text": text } });
    if let Some(secret) = secret {
        let timestamp = unix_now().to_string();
        body["sign"] = json!(sign(&timestamp, secret));
        body["timestamp"] = json!(timestamp);
    }
    body
}

#[async_trait]
impl Notifier for FeishuNotifier {
    fn channel(&self) -> Channel {
        Channel::Feishu
    }

    /// Goes to the configured webhook whatever the recipient says.
    async fn send(
        &self,
        config: &NotificationConfig,
        _recipient: &Recipient,
        notification: &Notification,
    ) -> Result<(), NotifyError> {
        let url = required(config.feishu_webhook_url.as_ref(), "the chatD webhook URL")?;
        let secret = config
            .feishu_secret
            .as_ref()
            .map(|s| s.expose().trim())
            .filter(|s| !s.is_empty());
        let body = message(notification, secret);
        let secrets = [url, secret.unwrap_or("")];
        let response = self
            .http
            .send(|c| c.post(url).json(&body))
            .await
            .map_err(|e| from_http(e, &secrets))?;
        let answer: FeishuAnswer = response.json().map_err(|_| {
            NotifyError::Unavailable("Feishu answered with something other than JSON".into())
        })?;
        let code = answer.code.or(answer.status_code).unwrap_or(0);
        if code == 0 {
            return Ok(());
        }
        let msg = answer
            .msg
            .or(answer.status_message)
            .unwrap_or_else(|| "no message".into());
        let text = scrub(&format!("Feishu code {code}: {msg}"), &secrets);
        if RATE_LIMITED.contains(&code) {
            Err(NotifyError::Unavailable(text))
        } else {
            Err(NotifyError::Rejected(text))
        }
    }
}
