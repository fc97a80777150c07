//! Rows of the notification tables (settings, delivery history, push
//! subscriptions), and the parsing of their enum columns.

use super::secret::{open, seal};
use crate::error::corrupt;
use crate::schema::{notification_configs, notification_history, push_subscriptions};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use reviewd_crypto::SecretBox;
use reviewd_domain::model::notification::{
    Channel, DeliveryStatus, Frequency, NotificationConfig, NotificationRecord, NotificationType,
    PushSubscription, ReviewEvent,
};
use reviewd_domain::ports::RepoError;
use serde_json::Value;
use uuid::Uuid;

/// The settings row (`id = 1`), without its id: read as it is, and written whole
/// (secrets sealed) by the insert and the update of the upsert alike, `None`
/// writing NULL.
#[derive(Debug, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = notification_configs, check_for_backend(diesel::pg::Pg), treat_none_as_null = true)]
pub(crate) struct ConfigRow {
    pub email_enabled: bool,
    pub smtp_host: Option<String>,
    pub smtp_port: Option<i32>,
    pub smtp_secure: bool,
    pub smtp_username: Option<String>,
    pub smtp_password_enc: Option<String>,
    pub email_from: Option<String>,
    pub email_recipients: Vec<String>,
    pub webhook_enabled: bool,
    pub webhook_urls: Vec<String>,
    pub webhook_secret_enc: Option<String>,
    pub chat_a_enabled: bool,
    pub chat_a_bot_token_enc: Option<String>,
    pub chat_a_channels: Vec<String>,
    pub chat_b_enabled: bool,
    pub chat_b_webhook_url_enc: Option<String>,
    pub chat_c_enabled: bool,
    pub chat_c_webhook_url_enc: Option<String>,
    pub chat_d_enabled: bool,
    pub chat_d_webhook_url_enc: Option<String>,
    pub chat_d_secret_enc: Option<String>,
    pub push_enabled: bool,
    pub vapid_public_key: Option<String>,
    pub vapid_private_key_enc: Option<String>,
    pub vapid_subject: Option<String>,
    pub notify_on_review_completed: bool,
    pub notify_on_review_failed: bool,
    pub notify_on_rating_low: bool,
    pub rating_threshold: i32,
    pub notification_frequency: String,
    pub updated_at: DateTime<Utc>,
}

impl ConfigRow {
    pub(crate) fn into_config(self, secrets: &SecretBox) -> Result<NotificationConfig, RepoError> {
        let what = |field: &str| format!("notification config {field}");
        let smtp_port = self
            .smtp_port
            .map(|p| u16::try_from(p).map_err(|_| corrupt(what(&format!("smtp port `{p}`")))))
            .transpose()?;
        let notification_frequency =
            Frequency::parse(&self.notification_frequency).ok_or_else(|| {
                corrupt(what(&format!(
                    "frequency `{}`",
                    self.notification_frequency
                )))
            })?;
        Ok(NotificationConfig {
            email_enabled: self.email_enabled,
            smtp_host: self.smtp_host,
            smtp_port,
            smtp_secure: self.smtp_secure,
            smtp_username: self.smtp_username,
            smtp_password: open(secrets, self.smtp_password_enc, &what("smtp password"))?,
            email_from: self.email_from,
            email_recipients: self.email_recipients,
            webhook_enabled: self.webhook_enabled,
            webhook_urls: self.webhook_urls,
            webhook_secret: open(secrets, self.webhook_secret_enc, &what("webhook secret"))?,
            slack_enabled: self.chat_a_enabled,
            slack_bot_token: open(secrets, self.chat_a_bot_token_enc, &what("chatA bot token"))?,
            slack_channels: self.chat_a_channels,
            discord_enabled: self.chat_b_enabled,
            discord_webhook_url: open(
                secrets,
                self.chat_b_webhook_url_enc,
                &what("chatB webhook url"),
            )?,
            teams_enabled: self.chat_c_enabled,
            teams_webhook_url: open(
                secrets,
                self.chat_c_webhook_url_enc,
                &what("chatC webhook url"),
            )?,
            feishu_enabled: self.chat_d_enabled,
            feishu_webhook_url: open(
                secrets,
                self.chat_d_webhook_url_enc,
                &what("chatD webhook url"),
            )?,
            feishu_secret: open(secrets, self.chat_d_secret_enc, &what("chatD secret"))?,
            push_enabled: self.push_enabled,
            vapid_public_key: self.vapid_public_key,
            vapid_private_key: open(
                secrets,
                self.vapid_private_key_enc,
                &what("VAPID private key"),
            )?,
            vapid_subject: self.vapid_subject,
            notify_on_review_completed: self.notify_on_review_completed,
            notify_on_review_failed: self.notify_on_review_failed,
            notify_on_rating_low: self.notify_on_rating_low,
            rating_threshold: self.rating_threshold,
            notification_frequency,
            updated_at: Some(self.updated_at),
        })
    }
}

impl ConfigRow {
    pub(crate) fn sealed(c: &NotificationConfig, secrets: &SecretBox) -> Self {
        Self {
            email_enabled: c.email_enabled,
            smtp_host: c.smtp_host.clone(),
            smtp_port: c.smtp_port.map(i32::from),
            smtp_secure: c.smtp_secure,
            smtp_username: c.smtp_username.clone(),
            smtp_password_enc: seal(secrets, c.smtp_password.as_ref()),
            email_from: c.email_from.clone(),
            email_recipients: c.email_recipients.clone(),
            webhook_enabled: c.webhook_enabled,
            webhook_urls: c.webhook_urls.clone(),
            webhook_secret_enc: seal(secrets, c.webhook_secret.as_ref()),
            chat_a_enabled: c.slack_enabled,
            chat_a_bot_token_enc: seal(secrets, c.slack_bot_token.as_ref()),
            chat_a_channels: c.slack_channels.clone(),
            chat_b_enabled: c.discord_enabled,
            chat_b_webhook_url_enc: seal(secrets, c.discord_webhook_url.as_ref()),
            chat_c_enabled: c.teams_enabled,
            chat_c_webhook_url_enc: seal(secrets, c.teams_webhook_url.as_ref()),
            chat_d_enabled: c.feishu_enabled,
            chat_d_webhook_url_enc: seal(secrets, c.feishu_webhook_url.as_ref()),
            chat_d_secret_enc: seal(secrets, c.feishu_secret.as_ref()),
            push_enabled: c.push_enabled,
            vapid_public_key: c.vapid_public_key.clone(),
            vapid_private_key_enc: seal(secrets, c.vapid_private_key.as_ref()),
            vapid_subject: c.vapid_subject.clone(),
            notify_on_review_completed: c.notify_on_review_completed,
            notify_on_review_failed: c.notify_on_review_failed,
            notify_on_rating_low: c.notify_on_rating_low,
            rating_threshold: c.rating_threshold,
            notification_frequency: c.notification_frequency.as_str().to_owned(),
            updated_at: Utc::now(),
        }
    }
}

/// A delivery record (the payload stays in the database).
#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = notification_history, check_for_backend(diesel::pg::Pg))]
pub(crate) struct HistoryRow {
    pub id: Uuid,
    pub review_id: Option<Uuid>,
    pub channel: String,
    pub notification_type: String,
    pub recipient: Option<String>,
    pub status: String,
    pub error_message: Option<String>,
    pub attempts: i32,
    pub sent_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

pub(crate) fn channel(s: &str, what: impl Fn() -> String) -> Result<Channel, RepoError> {
    Channel::parse(s).ok_or_else(|| corrupt(format!("{}: channel `{s}`", what())))
}

pub(crate) fn delivery_status(
    s: &str,
    what: impl Fn() -> String,
) -> Result<DeliveryStatus, RepoError> {
    DeliveryStatus::parse(s).ok_or_else(|| corrupt(format!("{}: status `{s}`", what())))
}

pub(crate) fn notification_type(
    s: &str,
    what: impl Fn() -> String,
) -> Result<NotificationType, RepoError> {
    NotificationType::parse(s).ok_or_else(|| corrupt(format!("{}: type `{s}`", what())))
}

impl TryFrom<HistoryRow> for NotificationRecord {
    type Error = RepoError;

    fn try_from(r: HistoryRow) -> Result<Self, RepoError> {
        let what = || format!("notification record {}", r.id);
        Ok(NotificationRecord {
            channel: channel(&r.channel, what)?,
            notification_type: notification_type(&r.notification_type, what)?,
            status: delivery_status(&r.status, what)?,
            id: r.id,
            review_id: r.review_id.map(Into::into),
            recipient: r.recipient,
            error_message: r.error_message,
            attempts: r.attempts,
            sent_at: r.sent_at,
            created_at: r.created_at,
        })
    }
}

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = push_subscriptions, check_for_backend(diesel::pg::Pg))]
pub(crate) struct SubscriptionRow {
    pub id: Uuid,
    pub user_id: Option<Uuid>,
    pub endpoint: String,
    pub p256dh: String,
    pub auth: String,
    pub user_agent: Option<String>,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub expires_at: Option<DateTime<Utc>>,
}

impl From<SubscriptionRow> for PushSubscription {
    fn from(r: SubscriptionRow) -> Self {
        PushSubscription {
            id: r.id,
            user_id: r.user_id,
            endpoint: r.endpoint,
            p256dh: r.p256dh,
            auth: r.auth,
            user_agent: r.user_agent,
            created_at: r.created_at,
            last_used_at: r.last_used_at,
            expires_at: r.expires_at,
        }
    }
}

/// Reads back a digest event's payload, as `serde_json::to_value(&ReviewEvent)` wrote it.
pub(crate) fn review_event(v: &Value) -> Result<ReviewEvent, String> {
    serde_json::from_value(v.clone()).map_err(|e| e.to_string())
}
