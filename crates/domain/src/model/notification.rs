//! Notifications: the settings (one per deployment), what is sent, and the record
//! of every delivery.

use super::SecretString;
use super::ids::ReviewId;
use chrono::{DateTime, Utc};
use serde::Serialize;
use uuid::Uuid;

use super::named_values::text_enum;

text_enum!(
    /// Where a notification goes.
    Channel {
        Email => "email",
        Webhook => "webhook",
        // The contract's neutral names for Slack, Discord, Microsoft Teams and Feishu.
        Slack => "chatA",
        Discord => "chatB",
        Teams => "chatC",
        Feishu => "chatD",
        Push => "push",
    }
);

text_enum!(
    NotificationType {
        ReviewCompleted => "review_completed",
        ReviewFailed => "review_failed",
        RatingLow => "rating_low",
        DailySummary => "daily_summary",
        WeeklySummary => "weekly_summary",
    }
);

text_enum!(
    DeliveryStatus {
        Pending => "pending",
        Sent => "sent",
        Failed => "failed",
    }
);

text_enum!(
    Frequency {
        Immediate => "immediate",
        Daily => "daily",
        Weekly => "weekly",
    }
);

/// The deployment's notification settings. Secrets are held as [`SecretString`]
/// and shown masked by the API.
#[derive(Debug, Clone, PartialEq)]
pub struct NotificationConfig {
    pub email_enabled: bool,
    pub smtp_host: Option<String>,
    pub smtp_port: Option<u16>,
    /// TLS from the first byte when true; STARTTLS when offered (else plain) when false.
    pub smtp_secure: bool,
    pub smtp_username: Option<String>,
    pub smtp_password: Option<SecretString>,
    pub email_from: Option<String>,
    pub email_recipients: Vec<String>,
    pub webhook_enabled: bool,
    pub webhook_urls: Vec<String>,
    /// Signs outbound webhook bodies (HMAC-SHA256) when set.
    pub webhook_secret: Option<SecretString>,
    pub slack_enabled: bool,
    pub slack_bot_token: Option<SecretString>,
    pub slack_channels: Vec<String>,
    pub discord_enabled: bool,
    pub discord_webhook_url: Option<SecretString>,
    pub teams_enabled: bool,
    pub teams_webhook_url: Option<SecretString>,
    pub feishu_enabled: bool,
    pub feishu_webhook_url: Option<SecretString>,
    pub feishu_secret: Option<SecretString>,
    pub push_enabled: bool,
    pub vapid_public_key: Option<String>,
    pub vapid_private_key: Option<SecretString>,
    /// `mailto:` or `https:` contact sent to push services in the VAPID claim.
    pub vapid_subject: Option<String>,
    pub notify_on_review_completed: bool,
    pub notify_on_review_failed: bool,
    pub notify_on_rating_low: bool,
    pub rating_threshold: i32,
    pub notification_frequency: Frequency,
    pub updated_at: Option<DateTime<Utc>>,
}

impl Default for NotificationConfig {
    fn default() -> Self {
        Self {
            email_enabled: false,
            smtp_host: None,
            smtp_port: None,
            smtp_secure: true,
            smtp_username: None,
            smtp_password: None,
            email_from: None,
            email_recipients: Vec::new(),
            webhook_enabled: false,
            webhook_urls: Vec::new(),
            webhook_secret: None,
            slack_enabled: false,
            slack_bot_token: None,
            slack_channels: Vec::new(),
            discord_enabled: false,
            discord_webhook_url: None,
            teams_enabled: false,
            teams_webhook_url: None,
            feishu_enabled: false,
            feishu_webhook_url: None,
            feishu_secret: None,
            push_enabled: false,
            vapid_public_key: None,
            vapid_private_key: None,
            vapid_subject: None,
            notify_on_review_completed: true,
            notify_on_review_failed: true,
            notify_on_rating_low: true,
            rating_threshold: 70,
            notification_frequency: Frequency::Immediate,
            updated_at: None,
        }
    }
}

impl NotificationConfig {
    #[must_use]
    pub fn enabled(&self, channel: Channel) -> bool {
        match channel {
            Channel::Email => self.email_enabled,
            Channel::Webhook => self.webhook_enabled,
            Channel::Slack => self.slack_enabled,
            Channel::Discord => self.discord_enabled,
            Channel::Teams => self.teams_enabled,
            Channel::Feishu => self.feishu_enabled,
            Channel::Push => self.push_enabled,
        }
    }
}

/// A field of a patch: absent (keep), or a new value (`None` clears a nullable one).
pub type Change<T> = Option<T>;

/// Changes to the settings; each `Some` replaces the field. For nullable fields the
/// inner `Option` is the new value (`None` clears it).
#[derive(Debug, Clone, Default)]
pub struct NotificationConfigPatch {
    pub email_enabled: Change<bool>,
    pub smtp_host: Change<Option<String>>,
    pub smtp_port: Change<Option<u16>>,
    pub smtp_secure: Change<bool>,
    pub smtp_username: Change<Option<String>>,
    pub smtp_password: Change<Option<SecretString>>,
    pub email_from: Change<Option<String>>,
    pub email_recipients: Change<Vec<String>>,
    pub webhook_enabled: Change<bool>,
    pub webhook_urls: Change<Vec<String>>,
    pub webhook_secret: Change<Option<SecretString>>,
    pub slack_enabled: Change<bool>,
    pub slack_bot_token: Change<Option<SecretString>>,
    pub slack_channels: Change<Vec<String>>,
    pub discord_enabled: Change<bool>,
    pub discord_webhook_url: Change<Option<SecretString>>,
    pub teams_enabled: Change<bool>,
    pub teams_webhook_url: Change<Option<SecretString>>,
    pub feishu_enabled: Change<bool>,
    pub feishu_webhook_url: Change<Option<SecretString>>,
    pub feishu_secret: Change<Option<SecretString>>,
    pub push_enabled: Change<bool>,
    pub vapid_subject: Change<Option<String>>,
    pub notify_on_review_completed: Change<bool>,
    pub notify_on_review_failed: Change<bool>,
    pub notify_on_rating_low: Change<bool>,
    pub rating_threshold: Change<i32>,
    pub notification_frequency: Change<Frequency>,
}

impl NotificationConfigPatch {
    /// The patch with each stored secret dropped whose destination it moves and
    /// which it does not type again: the SMTP password goes only to the host and
    /// port it was entered for, the chatD signing secret only with its webhook.
    /// Whoever may edit the settings never reads these secrets, and must not
    /// collect them by pointing them at a server of their own. `base` is what the
    /// patch applies to, `current` what is stored.
    #[must_use]
    pub fn secrets_stay_home(
        mut self,
        base: &NotificationConfig,
        current: &NotificationConfig,
    ) -> Self {
        let host = self
            .smtp_host
            .clone()
            .unwrap_or_else(|| base.smtp_host.clone());
        let port = self.smtp_port.unwrap_or(base.smtp_port);
        // Cleared, a destination sends nothing anywhere; a new one later is a move.
        // Dropping TLS sends the password in the clear: a move too.
        let secure = self.smtp_secure.unwrap_or(base.smtp_secure);
        let smtp_moved = host.is_some()
            && (host != current.smtp_host
                || port != current.smtp_port
                || (current.smtp_secure && !secure));
        if smtp_moved && self.smtp_password.is_none() && current.smtp_password.is_some() {
            self.smtp_password = Some(None);
        }
        let exposed = |url: &Option<SecretString>| url.as_ref().map(|u| u.expose().to_owned());
        let feishu = self
            .feishu_webhook_url
            .as_ref()
            .map_or_else(|| exposed(&base.feishu_webhook_url), exposed);
        let feishu_moved = feishu.is_some() && feishu != exposed(&current.feishu_webhook_url);
        if feishu_moved && self.feishu_secret.is_none() && current.feishu_secret.is_some() {
            self.feishu_secret = Some(None);
        }
        self
    }

    /// The settings with these changes made.
    #[must_use]
    pub fn apply(self, mut c: NotificationConfig) -> NotificationConfig {
        macro_rules! set {
            ($($field:ident),+) => { $(if let Some(v) = self.$field { c.$field = v; })+ };
        }
        set!(
            email_enabled,
            smtp_host,
            smtp_port,
            smtp_secure,
            smtp_username,
            smtp_password,
            email_from,
            email_recipients,
            webhook_enabled,
            webhook_urls,
            webhook_secret,
            slack_enabled,
            slack_bot_token,
            slack_channels,
            discord_enabled,
            discord_webhook_url,
            teams_enabled,
            teams_webhook_url,
            feishu_enabled,
            feishu_webhook_url,
            feishu_secret,
            push_enabled,
            vapid_subject,
            notify_on_review_completed,
            notify_on_review_failed,
            notify_on_rating_low,
            rating_threshold,
            notification_frequency
        );
        c
    }
}

/// A VAPID key pair, both halves base64url without padding (the public key is the
/// uncompressed P-256 point browsers take as `applicationServerKey`).
#[derive(Debug, Clone)]
pub struct VapidKeys {
    pub public_key: String,
    pub private_key: SecretString,
}

/// A browser's push subscription.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushSubscription {
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

#[derive(Debug, Clone)]
pub struct NewPushSubscription {
    pub user_id: Uuid,
    pub endpoint: String,
    pub p256dh: String,
    pub auth: String,
    pub user_agent: Option<String>,
    /// When the push service ends the subscription (the browser's `expirationTime`).
    pub expires_at: Option<DateTime<Utc>>,
}

/// One delivery (a channel and a recipient).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotificationRecord {
    pub id: Uuid,
    pub review_id: Option<ReviewId>,
    pub channel: Channel,
    pub notification_type: NotificationType,
    pub recipient: Option<String>,
    pub status: DeliveryStatus,
    pub error_message: Option<String>,
    pub attempts: i32,
    pub sent_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Default)]
pub struct HistoryFilter {
    pub channel: Option<Channel>,
    pub status: Option<DeliveryStatus>,
    pub notification_type: Option<NotificationType>,
    pub review_id: Option<ReviewId>,
    pub start: Option<DateTime<Utc>>,
    pub end: Option<DateTime<Utc>>,
}

/// Deliveries counted by channel and status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryCount {
    pub channel: Channel,
    pub status: DeliveryStatus,
    pub count: i64,
}

/// A finished review, as notifications describe it.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewEvent {
    pub review_id: ReviewId,
    pub project_name: String,
    pub mr_iid: i64,
    pub mr_title: String,
    pub mr_url: String,
    pub author: Option<String>,
    /// `completed` or `failed`.
    pub status: String,
    pub rating: Option<String>,
    pub score: Option<u32>,
    pub comment_count: i32,
    pub error_message: Option<String>,
}

/// What a digest covers.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DigestSummary {
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    pub reviews_completed: u64,
    pub reviews_failed: u64,
    pub low_ratings: u64,
    /// The lowest-scored reviews of the period, lowest first (at most five).
    pub lowest: Vec<ReviewEvent>,
    /// The failed reviews of the period (at most five).
    pub failures: Vec<ReviewEvent>,
}

/// A notification, channel-independent: each adapter renders it its own way.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Notification {
    #[serde(rename = "event")]
    pub kind: NotificationType,
    pub title: String,
    /// Plain text, a few lines.
    pub text: String,
    pub url: Option<String>,
    pub review: Option<ReviewEvent>,
    pub digest: Option<DigestSummary>,
    pub created_at: DateTime<Utc>,
}

/// Where one delivery goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recipient {
    /// An email address.
    Email(String),
    /// An outbound webhook URL.
    Url(String),
    /// A `chatA` channel id.
    ChatChannel(String),
    /// The channel's one configured endpoint (`chatB`..`chatD`).
    Configured,
    Push(PushSubscription),
    /// A test delivery of a channel with nothing to address yet (reported as such).
    None,
}

impl Recipient {
    /// What history records as the recipient (never a URL that embeds a token).
    #[must_use]
    pub fn label(&self) -> Option<String> {
        match self {
            Self::Email(a) | Self::ChatChannel(a) => Some(a.clone()),
            Self::Url(u) => Some(strip_query(u)),
            Self::Push(s) => Some(strip_query(&s.endpoint)),
            Self::Configured | Self::None => None,
        }
    }
}

fn strip_query(url: &str) -> String {
    url.split(['?', '#']).next().unwrap_or(url).to_owned()
}
