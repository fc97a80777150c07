//! Notifications: the settings, dispatch of review events to every enabled channel
//! (each delivery recorded and retried with backoff, a bounded number of times),
//! daily and weekly digests, test deliveries, history and push subscriptions.

use super::{FieldError, ServiceError};
use crate::http_url;
use crate::model::notification::{
    Channel, DeliveryCount, DeliveryStatus, DigestSummary, Frequency, HistoryFilter,
    NewPushSubscription, Notification, NotificationConfig, NotificationConfigPatch,
    NotificationRecord, NotificationType, PushSubscription, Recipient, ReviewEvent, VapidKeys,
};
use crate::model::review::ReviewStatus;
use crate::pagination::{Page, PageRequest};
use crate::ports::{
    Clock, NewDelivery, NotificationRepository, Notifier, NotifyError, ReviewQueries,
    VapidKeyGenerator,
};
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

/// Most events listed by name in a digest.
const DIGEST_LIST: usize = 5;

#[derive(Debug, Clone)]
pub struct NotifySettings {
    /// Attempts per delivery, the first included (`NOTIFY_MAX_ATTEMPTS`).
    pub max_attempts: u32,
    /// Wait before the second attempt, doubled for each further one (`NOTIFY_RETRY_BASE_MS`).
    pub retry_base: Duration,
    /// The dashboard's address, for links in messages (`APP_URL`).
    pub app_url: String,
    /// The deployment's display name, at the start of every title (`SYSTEM_NAME`).
    pub system_name: String,
    /// Accept push endpoints on plain http or private addresses
    /// (`NOTIFY_PUSH_ALLOW_PRIVATE`; for tests and closed networks only).
    pub push_allow_private: bool,
}

/// The outcome of a test delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestResult {
    pub channel: Channel,
    pub success: bool,
    pub error: Option<String>,
    pub recipients: usize,
}

pub struct NotificationService {
    repo: Arc<dyn NotificationRepository>,
    reviews: Arc<dyn ReviewQueries>,
    notifiers: HashMap<Channel, Arc<dyn Notifier>>,
    vapid: Arc<dyn VapidKeyGenerator>,
    /// The waits between attempts go through it (no runtime in the domain).
    clock: Arc<dyn Clock>,
    settings: NotifySettings,
}

impl NotificationService {
    pub fn new(
        repo: Arc<dyn NotificationRepository>,
        reviews: Arc<dyn ReviewQueries>,
        notifiers: Vec<Arc<dyn Notifier>>,
        vapid: Arc<dyn VapidKeyGenerator>,
        clock: Arc<dyn Clock>,
        settings: NotifySettings,
    ) -> Self {
        Self {
            repo,
            reviews,
            notifiers: notifiers.into_iter().map(|n| (n.channel(), n)).collect(),
            vapid,
            clock,
            settings,
        }
    }

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
        let base = NotificationConfig {
            vapid_public_key: current.vapid_public_key,
            vapid_private_key: current.vapid_private_key,
            ..NotificationConfig::default()
        };
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
        self.save(patch.apply(current)).await
    }

    async fn save(&self, config: NotificationConfig) -> Result<NotificationConfig, ServiceError> {
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
            created_at: Utc::now(),
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

    /// Reacts to a finished review: notifies at once or holds the events for the
    /// digest, as the settings say. Failures are logged, never returned: a review
    /// does not depend on its notifications.
    pub async fn review_finished(&self, review_id: Uuid, status: ReviewStatus) {
        if let Err(e) = self.try_review_finished(review_id, status).await {
            tracing::error!(review.id = %review_id, error = %e, "notifications.dispatch_failed");
        }
    }

    async fn try_review_finished(
        &self,
        review_id: Uuid,
        status: ReviewStatus,
    ) -> Result<(), ServiceError> {
        let config = self.repo.config().await?;
        let detail = self
            .reviews
            .detail(review_id)
            .await
            .map_err(|e| ServiceError::from_repo(e, "review"))?;
        let event = ReviewEvent {
            review_id,
            project_name: detail.item.project_name.clone(),
            mr_iid: detail.item.mr_iid,
            mr_title: detail.item.mr_title.clone(),
            mr_url: detail.item.mr_url.clone(),
            author: detail.author_username.clone(),
            // As it finished: a new round may have set the record back to pending.
            status: status.as_str().to_owned(),
            rating: detail.item.overall_rating.clone(),
            score: detail.score.and_then(|s| u32::try_from(s).ok()),
            comment_count: detail.item.comment_count,
            error_message: detail.error_message.clone(),
        };
        for kind in event_types(&config, &event) {
            if config.notification_frequency == Frequency::Immediate {
                let notification = self.titled(render_review(kind, &event));
                self.dispatch(&config, &notification).await?;
            } else {
                self.repo.add_digest_event(kind, &event).await?;
                tracing::info!(review.id = %review_id, event = kind.as_str(), "notifications.held_for_digest");
            }
        }
        Ok(())
    }

    /// Sends the digest of `frequency` when the settings ask for it and events are
    /// waiting. Returns how many events it covered.
    ///
    /// # Errors
    /// Store failures.
    pub async fn send_digest(&self, frequency: Frequency) -> Result<usize, ServiceError> {
        let config = self.repo.config().await?;
        if config.notification_frequency != frequency || frequency == Frequency::Immediate {
            return Ok(0);
        }
        let now = Utc::now();
        let events = self.repo.take_digest_events(now).await?;
        if events.is_empty() {
            return Ok(0);
        }
        let digest = summarise(&events, now);
        let notification = self.titled(render_digest(frequency, &digest));
        self.dispatch(&config, &notification).await?;
        tracing::info!(
            frequency = frequency.as_str(),
            events = events.len(),
            "notifications.digest_sent"
        );
        Ok(events.len())
    }

    /// The title as readers see it: `[SYSTEM_NAME] ...`, so several deployments
    /// posting to one channel can be told apart.
    fn titled(&self, mut notification: Notification) -> Notification {
        notification.title = format!("[{}] {}", self.settings.system_name, notification.title);
        notification
    }

    /// One notification to every enabled channel, channels in parallel.
    async fn dispatch(
        &self,
        config: &NotificationConfig,
        notification: &Notification,
    ) -> Result<(), ServiceError> {
        let mut deliveries = Vec::new();
        for channel in Channel::ALL.iter().copied().filter(|c| config.enabled(*c)) {
            let Some(notifier) = self.notifiers.get(&channel) else {
                continue;
            };
            for recipient in self.recipients(config, channel).await? {
                deliveries.push(self.deliver(config, notifier.as_ref(), recipient, notification));
            }
        }
        futures_util::future::join_all(deliveries).await;
        Ok(())
    }

    /// Records one delivery and attempts it until it is sent, fails for good, or
    /// runs out of attempts.
    async fn deliver(
        &self,
        config: &NotificationConfig,
        notifier: &dyn Notifier,
        recipient: Recipient,
        notification: &Notification,
    ) {
        let channel = notifier.channel();
        let record = match self
            .repo
            .add_delivery(NewDelivery {
                review_id: notification.review.as_ref().map(|r| r.review_id),
                channel,
                notification_type: notification.kind,
                recipient: recipient.label(),
                payload: serde_json::to_value(notification).unwrap_or_default(),
            })
            .await
        {
            Ok(r) => r,
            Err(e) => {
                tracing::error!(channel = channel.as_str(), error = %e, "notifications.not_recorded");
                return;
            }
        };
        self.attempt(config, notifier, &recipient, notification, record.id, 1)
            .await;
    }

    /// Attempts number `first` onwards of a recorded delivery.
    async fn attempt(
        &self,
        config: &NotificationConfig,
        notifier: &dyn Notifier,
        recipient: &Recipient,
        notification: &Notification,
        record_id: Uuid,
        first: u32,
    ) {
        let channel = notifier.channel();
        let attempts = self.settings.max_attempts.max(1).max(first);
        for attempt in first..=attempts {
            let outcome = notifier.send(config, recipient, notification).await;
            let last = attempt == attempts;
            let (status, error) = match &outcome {
                Ok(()) => (DeliveryStatus::Sent, None),
                Err(e) if e.retryable() && !last => (DeliveryStatus::Pending, Some(e.to_string())),
                Err(e) => (DeliveryStatus::Failed, Some(e.to_string())),
            };
            if let Err(e) = self
                .repo
                .finish_attempt(record_id, status, error.as_deref())
                .await
            {
                tracing::error!(notification.id = %record_id, error = %e, "notifications.outcome_not_recorded");
            }
            match outcome {
                Ok(()) => {
                    tracing::info!(notification.id = %record_id, channel = channel.as_str(), attempt, "notifications.sent");
                    return;
                }
                Err(NotifyError::Gone(code)) => {
                    if let Recipient::Push(sub) = recipient {
                        // The browser dropped the subscription: stop sending to it.
                        if let Err(e) = self.repo.unsubscribe(&sub.endpoint).await {
                            tracing::warn!(error = %e, "notifications.gone_subscription_not_removed");
                        }
                    }
                    tracing::info!(notification.id = %record_id, status = code, "notifications.subscription_gone");
                    return;
                }
                Err(e) if e.retryable() && !last => {
                    let delay = self.settings.retry_base * 2u32.saturating_pow(attempt - 1);
                    tracing::warn!(notification.id = %record_id, channel = channel.as_str(), attempt, error = %e, "notifications.retrying");
                    self.clock.sleep(delay).await;
                }
                Err(e) => {
                    tracing::warn!(notification.id = %record_id, channel = channel.as_str(), attempt, error = %e, "notifications.failed");
                    return;
                }
            }
        }
    }

    /// Takes up deliveries left `pending` by a process that stopped while sending
    /// them (untouched for `stale_after`): each goes on from its next attempt, or
    /// fails when its recipient is no longer configured. Returns how many.
    ///
    /// # Errors
    /// Store failures.
    pub async fn resume_interrupted(&self, stale_after: Duration) -> Result<usize, ServiceError> {
        let before =
            Utc::now() - chrono::Duration::from_std(stale_after).unwrap_or(chrono::Duration::MAX);
        let stale = self.repo.take_stale_pending(before, 100).await?;
        if stale.is_empty() {
            return Ok(0);
        }
        let config = self.repo.config().await?;
        let config = &config;
        let mut resumed = Vec::new();
        for (record, payload) in &stale {
            let notification = serde_json::from_value::<Notification>(payload.clone());
            let recipient = self.recipient_of(config, record).await?;
            match (notification, recipient, self.notifiers.get(&record.channel)) {
                (Ok(notification), Some(recipient), Some(notifier)) => {
                    let first = u32::try_from(record.attempts).unwrap_or(0) + 1;
                    resumed.push(async move {
                        self.attempt(
                            config,
                            notifier.as_ref(),
                            &recipient,
                            &notification,
                            record.id,
                            first,
                        )
                        .await;
                    });
                }
                (notification, _, _) => {
                    let why = match notification {
                        Err(e) => format!("interrupted, and its payload cannot be read: {e}"),
                        Ok(_) => "interrupted, and its recipient is no longer configured".into(),
                    };
                    self.repo
                        .finish_attempt(record.id, DeliveryStatus::Failed, Some(&why))
                        .await?;
                }
            }
        }
        futures_util::future::join_all(resumed).await;
        tracing::warn!(count = stale.len(), "notifications.interrupted_resumed");
        Ok(stale.len())
    }

    /// The recipient a record was addressed to, as the settings have it now.
    async fn recipient_of(
        &self,
        config: &NotificationConfig,
        record: &NotificationRecord,
    ) -> Result<Option<Recipient>, ServiceError> {
        let label = record.recipient.clone();
        Ok(self
            .recipients(config, record.channel)
            .await?
            .into_iter()
            .find(|r| r.label() == label))
    }

    async fn recipients(
        &self,
        config: &NotificationConfig,
        channel: Channel,
    ) -> Result<Vec<Recipient>, ServiceError> {
        Ok(match channel {
            Channel::Email => config
                .email_recipients
                .iter()
                .cloned()
                .map(Recipient::Email)
                .collect(),
            Channel::Webhook => config
                .webhook_urls
                .iter()
                .cloned()
                .map(Recipient::Url)
                .collect(),
            Channel::ChatA => config
                .chat_a_channels
                .iter()
                .cloned()
                .map(Recipient::ChatChannel)
                .collect(),
            Channel::ChatB => config
                .chat_b_webhook_url
                .iter()
                .map(|_| Recipient::Configured)
                .collect(),
            Channel::ChatC => config
                .chat_c_webhook_url
                .iter()
                .map(|_| Recipient::Configured)
                .collect(),
            Channel::ChatD => config
                .chat_d_webhook_url
                .iter()
                .map(|_| Recipient::Configured)
                .collect(),
            Channel::Push => self
                .repo
                .subscriptions(None)
                .await?
                .into_iter()
                .filter(|s| s.expires_at.is_none_or(|t| t > Utc::now()))
                .map(Recipient::Push)
                .collect(),
        })
    }

    /// # Errors
    /// Store failures.
    pub async fn history(
        &self,
        filter: &HistoryFilter,
        page: PageRequest,
    ) -> Result<Page<NotificationRecord>, ServiceError> {
        Ok(self.repo.history(filter, page).await?)
    }

    /// # Errors
    /// `NotFound`.
    pub async fn record(&self, id: Uuid) -> Result<NotificationRecord, ServiceError> {
        self.repo
            .record(id)
            .await
            .map_err(|e| ServiceError::from_repo(e, "notification"))
    }

    /// # Errors
    /// Store failures.
    pub async fn stats(
        &self,
        start: Option<DateTime<Utc>>,
        end: Option<DateTime<Utc>>,
    ) -> Result<Vec<DeliveryCount>, ServiceError> {
        Ok(self.repo.stats(start, end).await?)
    }

    /// Deletes history older than `days` days.
    ///
    /// # Errors
    /// `Invalid` for a negative number.
    pub async fn clean(&self, days: i64) -> Result<u64, ServiceError> {
        if !(0..=36_500).contains(&days) {
            return Err(ServiceError::Invalid(vec![FieldError::new(
                "days",
                "must be a whole number from 0 to 36500",
            )]));
        }
        let deleted = self
            .repo
            .clean(Utc::now() - chrono::Duration::days(days))
            .await?;
        tracing::info!(days, deleted, "notifications.history_cleaned");
        Ok(deleted)
    }

    /// # Errors
    /// `Invalid` for an endpoint that is not an https (or, for tests, http) URL.
    pub async fn subscribe(
        &self,
        sub: NewPushSubscription,
    ) -> Result<PushSubscription, ServiceError> {
        let mut errors = Vec::new();
        if let Err(why) = check_push_endpoint(&sub.endpoint, self.settings.push_allow_private) {
            errors.push(FieldError::new("endpoint", why));
        }
        if !is_base64url(&sub.p256dh) || sub.p256dh.len() < 80 {
            errors.push(FieldError::new(
                "keys.p256dh",
                "must be the browser's P-256 public key, base64url",
            ));
        }
        if !is_base64url(&sub.auth) || sub.auth.len() < 16 {
            errors.push(FieldError::new(
                "keys.auth",
                "must be the browser's 16-byte auth secret, base64url",
            ));
        }
        if !errors.is_empty() {
            return Err(ServiceError::Invalid(errors));
        }
        Ok(self.repo.subscribe(sub).await?)
    }

    /// # Errors
    /// Store failures.
    pub async fn subscriptions(
        &self,
        user: Option<Uuid>,
    ) -> Result<Vec<PushSubscription>, ServiceError> {
        Ok(self.repo.subscriptions(user).await?)
    }

    /// # Errors
    /// `NotFound` for an unknown endpoint.
    pub async fn touch(&self, endpoint: &str) -> Result<(), ServiceError> {
        self.repo
            .touch(endpoint)
            .await
            .map_err(|e| ServiceError::from_repo(e, "push subscription"))
    }

    /// # Errors
    /// `NotFound` for an unknown endpoint.
    pub async fn unsubscribe(&self, endpoint: &str) -> Result<(), ServiceError> {
        self.repo
            .unsubscribe(endpoint)
            .await
            .map_err(|e| ServiceError::from_repo(e, "push subscription"))
    }

    /// # Errors
    /// Store failures.
    pub async fn clean_subscriptions(&self) -> Result<u64, ServiceError> {
        Ok(self.repo.clean_subscriptions().await?)
    }
}

fn no_recipients(channel: Channel) -> String {
    match channel {
        Channel::Email => "no emailRecipients are configured".into(),
        Channel::Webhook => "no webhookUrls are configured".into(),
        Channel::ChatA => "no chatAChannels are configured".into(),
        Channel::Push => "no browser has subscribed to push notifications".into(),
        Channel::ChatB | Channel::ChatC | Channel::ChatD => {
            format!("no {}WebhookUrl is configured", channel.as_str())
        }
    }
}

/// A push endpoint must be a push service's https URL. Any signed-in user may
/// subscribe, and the server then posts to the endpoint on every event: an address
/// on this host or its private network is refused, so the server cannot be pointed
/// at internal services. (A public name that resolves to a private address is not
/// caught here.)
fn check_push_endpoint(endpoint: &str, allow_private: bool) -> Result<(), &'static str> {
    let schemes: &[&str] = if allow_private {
        &["https", "http"]
    } else {
        &["https"]
    };
    if endpoint.len() > 2048 {
        return Err("must be the push service's https URL");
    }
    let url =
        http_url::parse(endpoint, schemes).map_err(|_| "must be the push service's https URL")?;
    if !allow_private && http_url::is_private(&url) {
        return Err("must be a push service on the internet, not a local or private address");
    }
    Ok(())
}

fn is_base64url(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'='))
}

/// Which events a finished review produces under `config`.
#[must_use]
pub fn event_types(config: &NotificationConfig, event: &ReviewEvent) -> Vec<NotificationType> {
    let mut kinds = Vec::new();
    match event.status.as_str() {
        "completed" => {
            if config.notify_on_review_completed {
                kinds.push(NotificationType::ReviewCompleted);
            }
            let low = event
                .score
                .is_some_and(|s| i64::from(s) < i64::from(config.rating_threshold));
            if low && config.notify_on_rating_low {
                kinds.push(NotificationType::RatingLow);
            }
        }
        "failed" if config.notify_on_review_failed => kinds.push(NotificationType::ReviewFailed),
        _ => {}
    }
    kinds
}

fn mr_label(e: &ReviewEvent) -> String {
    format!("{} !{} \"{}\"", e.project_name, e.mr_iid, e.mr_title)
}

/// The message of a review event.
#[must_use]
pub fn render_review(kind: NotificationType, e: &ReviewEvent) -> Notification {
    let grade = match (&e.rating, e.score) {
        (Some(r), Some(s)) => format!("rating {r} ({s}/100)"),
        (Some(r), None) => format!("rating {r}"),
        _ => "no rating".to_owned(),
    };
    let (title, text) = match kind {
        NotificationType::ReviewFailed => (
            format!("Review failed: {}", mr_label(e)),
            format!(
                "The review of {} failed: {}",
                mr_label(e),
                e.error_message.as_deref().unwrap_or("no reason recorded")
            ),
        ),
        NotificationType::RatingLow => (
            format!("Low rating: {}", mr_label(e)),
            format!(
                "{} was reviewed with {grade}, below the threshold; {} comment(s).",
                mr_label(e),
                e.comment_count
            ),
        ),
        _ => (
            format!("Review completed: {}", mr_label(e)),
            format!(
                "{} was reviewed: {grade}, {} comment(s){}.",
                mr_label(e),
                e.comment_count,
                e.author
                    .as_deref()
                    .map(|a| format!(", author {a}"))
                    .unwrap_or_default()
            ),
        ),
    };
    Notification {
        kind,
        title,
        text,
        url: Some(e.mr_url.clone()).filter(|u| !u.is_empty()),
        review: Some(e.clone()),
        digest: None,
        created_at: Utc::now(),
    }
}

/// Counts and the notable reviews of a digest period.
#[must_use]
pub fn summarise(
    events: &[(NotificationType, ReviewEvent, DateTime<Utc>)],
    now: DateTime<Utc>,
) -> DigestSummary {
    let count = |k: NotificationType| events.iter().filter(|(t, _, _)| *t == k).count() as u64;
    let mut lowest: Vec<ReviewEvent> = events
        .iter()
        .filter(|(t, e, _)| *t == NotificationType::ReviewCompleted && e.score.is_some())
        .map(|(_, e, _)| e.clone())
        .collect();
    lowest.sort_by_key(|e| e.score);
    lowest.truncate(DIGEST_LIST);
    let failures: Vec<ReviewEvent> = events
        .iter()
        .filter(|(t, _, _)| *t == NotificationType::ReviewFailed)
        .map(|(_, e, _)| e.clone())
        .take(DIGEST_LIST)
        .collect();
    DigestSummary {
        from: events.first().map_or(now, |(_, _, at)| *at),
        to: now,
        reviews_completed: count(NotificationType::ReviewCompleted),
        reviews_failed: count(NotificationType::ReviewFailed),
        low_ratings: count(NotificationType::RatingLow),
        lowest,
        failures,
    }
}

/// The message of a digest.
#[must_use]
pub fn render_digest(frequency: Frequency, d: &DigestSummary) -> Notification {
    let (kind, label) = if frequency == Frequency::Weekly {
        (NotificationType::WeeklySummary, "Weekly")
    } else {
        (NotificationType::DailySummary, "Daily")
    };
    let mut text = format!(
        "{} review(s) completed, {} failed, {} below the rating threshold.",
        d.reviews_completed, d.reviews_failed, d.low_ratings
    );
    if !d.lowest.is_empty() {
        text.push_str("\nLowest ratings:");
        for e in &d.lowest {
            text.push_str(&format!(
                "\n- {}: {} ({}/100)",
                mr_label(e),
                e.rating.as_deref().unwrap_or("?"),
                e.score.unwrap_or(0)
            ));
        }
    }
    if !d.failures.is_empty() {
        text.push_str("\nFailed:");
        for e in &d.failures {
            text.push_str(&format!(
                "\n- {}: {}",
                mr_label(e),
                e.error_message.as_deref().unwrap_or("no reason recorded")
            ));
        }
    }
    Notification {
        kind,
        title: format!("{label} review summary"),
        text,
        url: None,
        review: None,
        digest: Some(d.clone()),
        created_at: Utc::now(),
    }
}

/// The blanks around a text field that settings ignore (ASCII white space).
fn is_blank(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ')
}

/// `local@domain.tld`: what a mail server takes without quoting: at most 64 characters
/// of the atom set before the `@`, then two or more labels of letters, digits and `-`.
fn is_email(a: &str) -> bool {
    const ATOM: &str = "!#$%&'*+/=?^_`{|}~-.";
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
fn is_sender(from: &str) -> bool {
    match from.strip_suffix('>').and_then(|f| f.rsplit_once('<')) {
        Some((name, address)) => {
            !name.chars().any(|c| c == '<' || c == '>' || c.is_control()) && is_email(address)
        }
        None => is_email(from),
    }
}

fn validate(c: &NotificationConfig) -> Result<(), ServiceError> {
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
        ("chatBWebhookUrl", &c.chat_b_webhook_url),
        ("chatCWebhookUrl", &c.chat_c_webhook_url),
        ("chatDWebhookUrl", &c.chat_d_webhook_url),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_checked_as_a_mail_server_takes_them() {
        for ok in ["ops@example.com", "a.b+c@mail.example.co.uk"] {
            assert!(is_email(ok), "{ok}");
        }
        for bad in [
            "nobody",
            "a@b",
            "a b@example.com",
            "a@exa_mple.com",
            "a@example.com\t*",
            "@example.com",
        ] {
            assert!(!is_email(bad), "{bad}");
        }
        assert!(is_sender("reviewd <reviewd@example.com>"));
        assert!(is_sender("reviewd@example.com"));
        assert!(!is_sender("a <b> <reviewd@example.com>"));
        assert!(!is_sender("L0s@mCBBtqJ[_(3SR|&.\\\t\t*"));
    }

    fn event(status: &str, score: Option<u32>) -> ReviewEvent {
        ReviewEvent {
            review_id: Uuid::nil(),
            project_name: "svc".into(),
            mr_iid: 7,
            mr_title: "Add cache".into(),
            mr_url: "https://git.example.com/svc/-/merge_requests/7".into(),
            author: Some("dev".into()),
            status: status.into(),
            rating: score.map(|_| "C".into()),
            score,
            comment_count: 3,
            error_message: (status == "failed").then(|| "AI unavailable".into()),
        }
    }

    #[test]
    fn a_low_score_adds_a_rating_low_event_and_flags_are_obeyed() {
        let config = NotificationConfig::default();
        assert_eq!(
            event_types(&config, &event("completed", Some(69))),
            vec![
                NotificationType::ReviewCompleted,
                NotificationType::RatingLow
            ]
        );
        assert_eq!(
            event_types(&config, &event("completed", Some(70))),
            vec![NotificationType::ReviewCompleted],
            "at the threshold is not below it"
        );
        assert_eq!(
            event_types(&config, &event("failed", None)),
            vec![NotificationType::ReviewFailed]
        );
        let quiet = NotificationConfig {
            notify_on_review_completed: false,
            notify_on_rating_low: false,
            notify_on_review_failed: false,
            ..NotificationConfig::default()
        };
        assert!(event_types(&quiet, &event("completed", Some(10))).is_empty());
        assert!(event_types(&quiet, &event("failed", None)).is_empty());
    }

    #[test]
    fn a_digest_counts_the_period_and_lists_the_lowest_first() {
        let at = Utc::now();
        let events = vec![
            (
                NotificationType::ReviewCompleted,
                event("completed", Some(90)),
                at,
            ),
            (
                NotificationType::ReviewCompleted,
                event("completed", Some(40)),
                at,
            ),
            (
                NotificationType::RatingLow,
                event("completed", Some(40)),
                at,
            ),
            (NotificationType::ReviewFailed, event("failed", None), at),
        ];
        let d = summarise(&events, at);
        assert_eq!(
            (d.reviews_completed, d.reviews_failed, d.low_ratings),
            (2, 1, 1)
        );
        assert_eq!(
            d.lowest.iter().map(|e| e.score).collect::<Vec<_>>(),
            vec![Some(40), Some(90)]
        );
        let n = render_digest(Frequency::Weekly, &d);
        assert_eq!(n.kind, NotificationType::WeeklySummary);
        assert!(
            n.text.contains("2 review(s) completed, 1 failed, 1 below"),
            "{}",
            n.text
        );
        assert!(n.text.contains("AI unavailable"));
    }

    #[test]
    fn push_endpoints_must_be_public_https_push_services() {
        for ok in [
            "https://fcm.googleapis.com/fcm/send/abc",
            "https://updates.push.services.mozilla.com/wpush/v2/x",
            "https://web.push.apple.com:443/Q",
        ] {
            assert_eq!(check_push_endpoint(ok, false), Ok(()), "{ok}");
        }
        for bad in [
            "http://fcm.googleapis.com/fcm/send/abc",
            "https://127.0.0.1/x",
            "https://10.0.0.5:8500/v1/kv",
            "https://192.168.1.1/",
            "https://169.254.169.254/latest/meta-data",
            "https://[::1]/x",
            "https://[fd00::1]/x",
            "https://localhost/x",
            "https://db.internal/x",
            "https://user@10.1.2.3/x",
            "ftp://push.example.com/x",
            "not a url",
        ] {
            assert!(check_push_endpoint(bad, false).is_err(), "{bad}");
        }
        assert_eq!(
            check_push_endpoint("http://127.0.0.1:9000/push", true),
            Ok(())
        );
    }

    #[test]
    fn bad_settings_are_named_field_by_field() {
        let config = NotificationConfig {
            rating_threshold: 101,
            email_recipients: vec!["ops@example.com".into(), "nobody".into()],
            webhook_urls: vec!["ftp://x".into()],
            ..NotificationConfig::default()
        };
        let Err(ServiceError::Invalid(errors)) = validate(&config) else {
            panic!("accepted");
        };
        let fields: Vec<_> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            vec!["ratingThreshold", "emailRecipients[1]", "webhookUrls[0]"]
        );
    }
}
