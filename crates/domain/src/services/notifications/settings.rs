//! The deployment's notification settings: reading, validating and saving them,
//! VAPID keys, and test deliveries.

use super::NotificationService;
use super::dispatch::no_recipients;
use crate::http_url;
use crate::model::notification::{
    Channel, Notification, NotificationConfig, NotificationConfigPatch, NotificationType, VapidKeys,
};
use crate::services::{FieldError, ServiceError};

/// The outcome of a test delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestResult {
    pub channel: Channel,
    pub success: bool,
    pub error: Option<String>,
    pub recipients: usize,
}

impl NotificationService {
    /// # Errors
    /// Store failures.
    pub async fn config(&self) -> Result<NotificationConfig, ServiceError> {
        Ok(self.repo.config().await?)
    }

    /// Replaces the settings: fields not given take their defaults. The VAPID key
    /// pair is kept (it is replaced only by generating a new one).
    ///
    /// # Errors
    /// `Invalid` for bad values.
    pub async fn replace(
        &self,
        patch: NotificationConfigPatch,
    ) -> Result<NotificationConfig, ServiceError> {
        let current = self.repo.config().await?;
        // A secret the patch leaves out (`***` in the API) is kept, unless its
        // destination moves; one it clears is cleared.
        let base = NotificationConfig {
            vapid_public_key: current.vapid_public_key.clone(),
            vapid_private_key: current.vapid_private_key.clone(),
            smtp_password: current.smtp_password.clone(),
            webhook_secret: current.webhook_secret.clone(),
            slack_bot_token: current.slack_bot_token.clone(),
            discord_webhook_url: current.discord_webhook_url.clone(),
            teams_webhook_url: current.teams_webhook_url.clone(),
            feishu_webhook_url: current.feishu_webhook_url.clone(),
            feishu_secret: current.feishu_secret.clone(),
            ..NotificationConfig::default()
        };
        let patch = patch.secrets_stay_home(&base, &current);
        self.save(patch.apply(base)).await
    }

    /// Changes only the given fields.
    ///
    /// # Errors
    /// `Invalid` for bad values.
    pub async fn update(
        &self,
        patch: NotificationConfigPatch,
    ) -> Result<NotificationConfig, ServiceError> {
        let current = self.repo.config().await?;
        let patch = patch.secrets_stay_home(&current, &current);
        self.save(patch.apply(current)).await
    }

    pub(super) async fn save(
        &self,
        config: NotificationConfig,
    ) -> Result<NotificationConfig, ServiceError> {
        validate(&config)?;
        let saved = self.repo.save_config(&config).await?;
        tracing::info!(
            channels = ?Channel::ALL.iter().filter(|c| saved.enabled(**c)).map(|c| c.as_str()).collect::<Vec<_>>(),
            frequency = saved.notification_frequency.as_str(),
            "notifications.config_saved"
        );
        Ok(saved)
    }

    /// A new VAPID key pair, stored; the private key is returned this once.
    ///
    /// # Errors
    /// Key generation or store failures.
    pub async fn generate_vapid_keys(&self) -> Result<VapidKeys, ServiceError> {
        let keys = self.vapid.generate().map_err(ServiceError::Internal)?;
        let mut config = self.repo.config().await?;
        config.vapid_public_key = Some(keys.public_key.clone());
        config.vapid_private_key = Some(keys.private_key.clone());
        self.repo.save_config(&config).await?;
        tracing::info!("notifications.vapid_keys_generated");
        Ok(keys)
    }

    /// Sends a test message on one channel to each of its recipients, once each,
    /// without recording it in the history.
    ///
    /// # Errors
    /// Store failures.
    pub async fn test_channel(&self, channel: Channel) -> Result<TestResult, ServiceError> {
        let config = self.repo.config().await?;
        let result = |success: bool, error: Option<String>, recipients: usize| TestResult {
            channel,
            success,
            error,
            recipients,
        };
        let Some(notifier) = self.notifiers.get(&channel) else {
            return Ok(result(
                false,
                Some("this channel is not available".into()),
                0,
            ));
        };
        let recipients = self.recipients(&config, channel).await?;
        if recipients.is_empty() {
            return Ok(result(false, Some(no_recipients(channel)), 0));
        }
        let notification = Notification {
            kind: NotificationType::ReviewCompleted,
            title: format!("[{}] Test notification", self.settings.system_name),
            text: format!(
                "This is a test of the {} channel. If you can read it, the channel works.",
                channel.as_str()
            ),
            url: Some(self.settings.app_url.clone()),
            review: None,
            digest: None,
            created_at: self.clock.now(),
        };
        let mut errors = Vec::new();
        for recipient in &recipients {
            if let Err(e) = notifier.send(&config, recipient, &notification).await {
                errors.push(match recipient.label() {
                    Some(label) => format!("{label}: {e}"),
                    None => e.to_string(),
                });
            }
        }
        tracing::info!(
            channel = channel.as_str(),
            failures = errors.len(),
            "notifications.test_sent"
        );
        Ok(result(
            errors.is_empty(),
            (!errors.is_empty()).then(|| errors.join("; ")),
            recipients.len(),
        ))
    }
}

/// The blanks around a text field that settings ignore (ASCII white space).
pub(super) fn is_blank(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ')
}

/// `local@domain.tld`: what a mail server takes without quoting: at most 64 characters
/// of the atom set before the `@`, then two or more labels of letters, digits and `-`.
pub(super) fn is_email(a: &str) -> bool {
    pub(super) const ATOM: &str = "!#$%&'*+/=?^_`{|}~-.";
    let Some((local, domain)) = a.split_once('@') else {
        return false;
    };
    let labels: Vec<&str> = domain.split('.').collect();
    a.len() <= 254
        && (1..=64).contains(&local.len())
        && local
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ATOM.contains(c))
        && labels.len() >= 2
        && labels.iter().all(|l| {
            (1..=63).contains(&l.len()) && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
}

/// An address, or `Display Name <address>` (the name without `<`, `>` or control
/// characters).
pub(super) fn is_sender(from: &str) -> bool {
    match from.strip_suffix('>').and_then(|f| f.rsplit_once('<')) {
        Some((name, address)) => {
            !name.chars().any(|c| c == '<' || c == '>' || c.is_control()) && is_email(address)
        }
        None => is_email(from),
    }
}

pub(super) fn validate(c: &NotificationConfig) -> Result<(), ServiceError> {
    let mut errors = Vec::new();
    if !(0..=100).contains(&c.rating_threshold) {
        errors.push(FieldError::new("ratingThreshold", "must be from 0 to 100"));
    }
    if c.smtp_port == Some(0) {
        errors.push(FieldError::new("smtpPort", "must be from 1 to 65535"));
    }
    for (i, a) in c.email_recipients.iter().enumerate() {
        if !is_email(a.trim_matches(is_blank)) {
            errors.push(FieldError::new(
                format!("emailRecipients[{i}]"),
                "is not an email address",
            ));
        }
    }
    if let Some(from) = &c.email_from
        && !is_sender(from.trim_matches(is_blank))
    {
        errors.push(FieldError::new("emailFrom", "is not an email address"));
    }
    let url_ok = |u: &str| http_url::parse(u, &["https", "http"]).is_ok();
    for (i, u) in c.webhook_urls.iter().enumerate() {
        if !url_ok(u) {
            errors.push(FieldError::new(
                format!("webhookUrls[{i}]"),
                "must be an http(s) URL",
            ));
        }
    }
    for (field, value) in [
        ("chatBWebhookUrl", &c.discord_webhook_url),
        ("chatCWebhookUrl", &c.teams_webhook_url),
        ("chatDWebhookUrl", &c.feishu_webhook_url),
    ] {
        if value.as_ref().is_some_and(|v| !url_ok(v.expose())) {
            errors.push(FieldError::new(field, "must be an http(s) URL"));
        }
    }
    if c.vapid_subject
        .as_deref()
        .is_some_and(|s| !(s.starts_with("mailto:") || s.starts_with("https://")))
    {
        errors.push(FieldError::new(
            "vapidSubject",
            "must be a mailto: or https: contact",
        ));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ServiceError::Invalid(errors))
    }
}
