//! What the notification routes answer: the settings (every secret masked), test
//! results, VAPID keys, delivery records and their statistics, push subscriptions.
//! Objects that were built as JSON maps list their fields in the order those maps
//! wrote them (alphabetical), so the bytes on the wire are unchanged.

use crate::openapi::string_enum;
use chrono::{DateTime, Utc};
use reviewd_domain::model::notification::{
    Channel, DeliveryCount, DeliveryStatus, Frequency, NotificationConfig, NotificationRecord,
    NotificationType, PushSubscription, VapidKeys,
};
use reviewd_domain::model::{MASK, SecretString};
use reviewd_domain::services::notifications::TestResult;
use serde::Serialize;
use std::collections::BTreeMap;
use utoipa::openapi::schema::{SchemaType, Type};
use utoipa::openapi::{Object, ObjectBuilder};
use utoipa::{PartialSchema, ToSchema};
use uuid::Uuid;

pub(super) fn channel_schema() -> Object {
    string_enum(Channel::ALL.iter().map(|c| c.as_str()))
}

pub(super) fn delivery_status_schema() -> Object {
    string_enum(DeliveryStatus::ALL.iter().map(|s| s.as_str()))
}

pub(super) fn notification_type_schema() -> Object {
    string_enum(NotificationType::ALL.iter().map(|t| t.as_str()))
}

pub(super) fn frequency_schema() -> Object {
    string_enum(Frequency::ALL.iter().map(|f| f.as_str()))
}

/// A secret as shown: `***` when set, `null` when not.
fn masked_secret_schema() -> Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .enum_values(Some([
            serde_json::Value::from(MASK),
            serde_json::Value::Null,
        ]))
        .description(Some(
            "`***` when set (the value is never shown), null when not.",
        ))
        .build()
}

fn masked(secret: Option<&SecretString>) -> Option<&'static str> {
    secret.map(|_| MASK)
}

/// The notification settings as the API shows them: every secret `***` (or null
/// when unset). Send a secret back as `***` to keep it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct NotificationConfigDto {
    #[serde(rename = "chatABotToken")]
    #[schema(schema_with = masked_secret_schema)]
    chat_a_bot_token: Option<&'static str>,
    /// `chatA` channel ids.
    #[serde(rename = "chatAChannels")]
    chat_a_channels: Vec<String>,
    #[serde(rename = "chatAEnabled")]
    chat_a_enabled: bool,
    #[serde(rename = "chatBEnabled")]
    chat_b_enabled: bool,
    #[serde(rename = "chatBWebhookUrl")]
    #[schema(schema_with = masked_secret_schema)]
    chat_b_webhook_url: Option<&'static str>,
    #[serde(rename = "chatCEnabled")]
    chat_c_enabled: bool,
    #[serde(rename = "chatCWebhookUrl")]
    #[schema(schema_with = masked_secret_schema)]
    chat_c_webhook_url: Option<&'static str>,
    #[serde(rename = "chatDEnabled")]
    chat_d_enabled: bool,
    #[serde(rename = "chatDSecret")]
    #[schema(schema_with = masked_secret_schema)]
    chat_d_secret: Option<&'static str>,
    #[serde(rename = "chatDWebhookUrl")]
    #[schema(schema_with = masked_secret_schema)]
    chat_d_webhook_url: Option<&'static str>,
    email_enabled: bool,
    email_from: Option<String>,
    email_recipients: Vec<String>,
    #[schema(schema_with = frequency_schema)]
    notification_frequency: &'static str,
    notify_on_rating_low: bool,
    notify_on_review_completed: bool,
    notify_on_review_failed: bool,
    push_enabled: bool,
    /// A review scoring below this (0 to 100) is a `rating_low` event.
    rating_threshold: i32,
    smtp_host: Option<String>,
    #[schema(schema_with = masked_secret_schema)]
    smtp_password: Option<&'static str>,
    #[schema(minimum = 1, maximum = 65535)]
    smtp_port: Option<u16>,
    /// TLS from the first byte when true; STARTTLS when offered when false.
    smtp_secure: bool,
    smtp_username: Option<String>,
    updated_at: Option<DateTime<Utc>>,
    #[schema(schema_with = masked_secret_schema)]
    vapid_private_key: Option<&'static str>,
    /// Browsers take it as `applicationServerKey` (base64url, no padding).
    vapid_public_key: Option<String>,
    /// `mailto:` or `https:` contact sent to push services.
    vapid_subject: Option<String>,
    webhook_enabled: bool,
    /// Signs outbound webhook bodies (HMAC-SHA256) when set.
    #[schema(schema_with = masked_secret_schema)]
    webhook_secret: Option<&'static str>,
    webhook_urls: Vec<String>,
}

impl From<NotificationConfig> for NotificationConfigDto {
    fn from(c: NotificationConfig) -> Self {
        Self {
            chat_a_bot_token: masked(c.chat_a_bot_token.as_ref()),
            chat_a_channels: c.chat_a_channels,
            chat_a_enabled: c.chat_a_enabled,
            chat_b_enabled: c.chat_b_enabled,
            chat_b_webhook_url: masked(c.chat_b_webhook_url.as_ref()),
            chat_c_enabled: c.chat_c_enabled,
            chat_c_webhook_url: masked(c.chat_c_webhook_url.as_ref()),
            chat_d_enabled: c.chat_d_enabled,
            chat_d_secret: masked(c.chat_d_secret.as_ref()),
            chat_d_webhook_url: masked(c.chat_d_webhook_url.as_ref()),
            email_enabled: c.email_enabled,
            email_from: c.email_from,
            email_recipients: c.email_recipients,
            notification_frequency: c.notification_frequency.as_str(),
            notify_on_rating_low: c.notify_on_rating_low,
            notify_on_review_completed: c.notify_on_review_completed,
            notify_on_review_failed: c.notify_on_review_failed,
            push_enabled: c.push_enabled,
            rating_threshold: c.rating_threshold,
            smtp_host: c.smtp_host,
            smtp_password: masked(c.smtp_password.as_ref()),
            smtp_port: c.smtp_port,
            smtp_secure: c.smtp_secure,
            smtp_username: c.smtp_username,
            updated_at: c.updated_at,
            vapid_private_key: masked(c.vapid_private_key.as_ref()),
            vapid_public_key: c.vapid_public_key,
            vapid_subject: c.vapid_subject,
            webhook_enabled: c.webhook_enabled,
            webhook_secret: masked(c.webhook_secret.as_ref()),
            webhook_urls: c.webhook_urls,
        }
    }
}

/// `{"config": {...}}`.
#[derive(Serialize, ToSchema)]
pub(super) struct NotificationConfigView {
    config: NotificationConfigDto,
}

impl From<NotificationConfig> for NotificationConfigView {
    fn from(c: NotificationConfig) -> Self {
        Self { config: c.into() }
    }
}

/// The outcome of a test delivery on one channel.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ChannelTestResultDto {
    #[schema(schema_with = channel_schema)]
    channel: &'static str,
    /// What failed, per recipient; null when every delivery went out.
    error: Option<String>,
    /// How many recipients the channel has (each got one message).
    recipients: usize,
    success: bool,
}

/// `{"result": {...}}`.
#[derive(Serialize, ToSchema)]
pub(super) struct ChannelTestView {
    result: ChannelTestResultDto,
}

impl From<TestResult> for ChannelTestView {
    fn from(r: TestResult) -> Self {
        Self {
            result: ChannelTestResultDto {
                channel: r.channel.as_str(),
                error: r.error,
                recipients: r.recipients,
                success: r.success,
            },
        }
    }
}

/// A new VAPID key pair, base64url without padding. The private key is shown this
/// once; the settings show it as `***` from then on.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct VapidKeysDto {
    private_key: String,
    public_key: String,
}

/// `{"keys": {...}}`.
#[derive(Serialize, ToSchema)]
pub(super) struct VapidKeysView {
    keys: VapidKeysDto,
}

impl From<VapidKeys> for VapidKeysView {
    fn from(k: VapidKeys) -> Self {
        Self {
            keys: VapidKeysDto {
                private_key: k.private_key.expose().to_owned(),
                public_key: k.public_key,
            },
        }
    }
}

/// One delivery (a channel and a recipient).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct NotificationRecordDto {
    id: Uuid,
    review_id: Option<Uuid>,
    #[schema(schema_with = channel_schema)]
    channel: &'static str,
    #[schema(schema_with = notification_type_schema)]
    notification_type: &'static str,
    /// An address, URL (without its query) or channel id; null for a channel's one
    /// configured endpoint.
    recipient: Option<String>,
    #[schema(schema_with = delivery_status_schema)]
    status: &'static str,
    error_message: Option<String>,
    attempts: i32,
    sent_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
}

impl From<NotificationRecord> for NotificationRecordDto {
    fn from(r: NotificationRecord) -> Self {
        Self {
            id: r.id,
            review_id: r.review_id,
            channel: r.channel.as_str(),
            notification_type: r.notification_type.as_str(),
            recipient: r.recipient,
            status: r.status.as_str(),
            error_message: r.error_message,
            attempts: r.attempts,
            sent_at: r.sent_at,
            created_at: r.created_at,
        }
    }
}

/// `{"notification": {...}}`.
#[derive(Serialize, ToSchema)]
pub(super) struct NotificationRecordView {
    notification: NotificationRecordDto,
}

impl From<NotificationRecord> for NotificationRecordView {
    fn from(r: NotificationRecord) -> Self {
        Self {
            notification: r.into(),
        }
    }
}

/// Deliveries by status; every status is present (0 when none).
#[derive(Clone, Copy, Default, Serialize, ToSchema)]
pub(super) struct DeliveryStatusCounts {
    failed: i64,
    pending: i64,
    sent: i64,
}

impl DeliveryStatusCounts {
    fn add(&mut self, status: DeliveryStatus, count: i64) {
        match status {
            DeliveryStatus::Failed => self.failed += count,
            DeliveryStatus::Pending => self.pending += count,
            DeliveryStatus::Sent => self.sent += count,
        }
    }
}

/// Deliveries counted by channel and status.
#[derive(Serialize, ToSchema)]
pub(super) struct DeliveryCountDto {
    #[schema(schema_with = channel_schema)]
    channel: &'static str,
    count: i64,
    #[schema(schema_with = delivery_status_schema)]
    status: &'static str,
}

/// `byChannel`: a channel's counts by status, for each channel that has deliveries.
fn by_channel_schema() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .property_names(Some(channel_schema()))
        .additional_properties(Some(DeliveryStatusCounts::schema()))
        .description(Some(
            "Counts by status for each channel that has deliveries (channels without any are absent).",
        ))
        .build()
}

/// Delivery statistics: the counts by channel and status, with totals per channel
/// and per status.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct NotificationStatsDto {
    #[schema(schema_with = by_channel_schema)]
    by_channel: BTreeMap<&'static str, DeliveryStatusCounts>,
    by_status: DeliveryStatusCounts,
    items: Vec<DeliveryCountDto>,
    total: i64,
}

/// `{"stats": {...}}`.
#[derive(Serialize, ToSchema)]
pub(super) struct NotificationStatsView {
    stats: NotificationStatsDto,
}

impl NotificationStatsView {
    pub(super) fn new(counts: Vec<DeliveryCount>) -> Self {
        let mut by_channel: BTreeMap<&'static str, DeliveryStatusCounts> = BTreeMap::new();
        let mut by_status = DeliveryStatusCounts::default();
        for c in &counts {
            by_channel
                .entry(c.channel.as_str())
                .or_default()
                .add(c.status, c.count);
            by_status.add(c.status, c.count);
        }
        Self {
            stats: NotificationStatsDto {
                by_channel,
                by_status,
                total: counts.iter().map(|c| c.count).sum(),
                items: counts
                    .into_iter()
                    .map(|c| DeliveryCountDto {
                        channel: c.channel.as_str(),
                        count: c.count,
                        status: c.status.as_str(),
                    })
                    .collect(),
            },
        }
    }
}

/// `{"deleted": n}`: how many rows a clean-up removed.
#[derive(Serialize, ToSchema)]
pub(super) struct NotificationsDeleted {
    deleted: u64,
}

impl NotificationsDeleted {
    pub(super) fn new(deleted: u64) -> Self {
        Self { deleted }
    }
}

/// A browser's push subscription as listed: its encryption keys are not shown.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct PushSubscriptionDto {
    created_at: DateTime<Utc>,
    endpoint: String,
    /// When the push service ends the subscription, if it said.
    expires_at: Option<DateTime<Utc>>,
    id: Uuid,
    last_used_at: Option<DateTime<Utc>>,
    user_agent: Option<String>,
    user_id: Option<Uuid>,
}

impl From<PushSubscription> for PushSubscriptionDto {
    fn from(s: PushSubscription) -> Self {
        Self {
            created_at: s.created_at,
            endpoint: s.endpoint,
            expires_at: s.expires_at,
            id: s.id,
            last_used_at: s.last_used_at,
            user_agent: s.user_agent,
            user_id: s.user_id,
        }
    }
}

/// `{"subscription": {...}}`.
#[derive(Serialize, ToSchema)]
pub(super) struct PushSubscriptionView {
    subscription: PushSubscriptionDto,
}

impl From<PushSubscription> for PushSubscriptionView {
    fn from(s: PushSubscription) -> Self {
        Self {
            subscription: s.into(),
        }
    }
}

/// `{"touched": true}`.
#[derive(Serialize, ToSchema)]
pub(super) struct PushTouched {
    touched: bool,
}

impl PushTouched {
    pub(super) const YES: Self = Self { touched: true };
}

/// `{"unsubscribed": true}`.
#[derive(Serialize, ToSchema)]
pub(super) struct PushUnsubscribed {
    unsubscribed: bool,
}

impl PushUnsubscribed {
    pub(super) const YES: Self = Self { unsubscribed: true };
}
