//! Dispatch: a finished review (or a digest) to every enabled channel and
//! recipient, each delivery recorded and retried with backoff; interrupted
//! deliveries resumed.

use super::NotificationService;
use super::render::{render_budget, render_digest, render_review, summarise};
use crate::model::BudgetStop;
use crate::model::ReviewId;
use crate::model::notification::{
    Channel, DeliveryStatus, Frequency, Notification, NotificationConfig, NotificationRecord,
    NotificationType, Recipient, ReviewEvent,
};
use crate::model::review::ReviewStatus;
use crate::ports::{NewDelivery, Notifier, NotifyError};
use crate::services::ServiceError;
use futures_util::StreamExt;
use std::time::Duration;
use uuid::Uuid;

/// Deliveries of one notification in flight at once (a mail to every user is one
/// delivery per address): bounded so a large team does not open hundreds of
/// connections at once.
const PARALLEL_DELIVERIES: usize = 16;

impl NotificationService {
    /// Reacts to a finished review: notifies at once or holds the events for the
    /// digest, as the settings say. Failures are logged, never returned: a review
    /// does not depend on its notifications.
    pub async fn review_finished(&self, review_id: ReviewId, status: ReviewStatus) {
        if let Err(e) = self.try_review_finished(review_id, status).await {
            tracing::error!(review.id = %review_id, error = %e, "notifications.dispatch_failed");
        }
    }

    pub(super) async fn try_review_finished(
        &self,
        review_id: ReviewId,
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
            rating: detail.item.overall_rating.map(|g| g.as_str().to_owned()),
            score: detail.score.and_then(|s| u32::try_from(s).ok()),
            comment_count: detail.item.comment_count,
            error_message: detail.error_message.clone(),
        };
        let kinds = event_types(&config, &event);
        if config.notification_frequency != Frequency::Immediate {
            for kind in kinds {
                self.repo.add_digest_event(kind, &event).await?;
                tracing::info!(review.id = %review_id, event = kind.as_str(), "notifications.held_for_digest");
            }
            return Ok(());
        }
        // Every kind of the event at once: one kind's slow or failing channel (its
        // retries back off for seconds) holds up no other.
        let notifications: Vec<Notification> = kinds
            .into_iter()
            .map(|kind| self.titled(render_review(kind, &event, self.clock.now())))
            .collect();
        let sent = notifications.iter().map(|n| self.dispatch(&config, n));
        for result in futures_util::future::join_all(sent).await {
            result?;
        }
        Ok(())
    }

    /// Tells every channel that a project's budget stopped its automatic reviews, as
    /// a `review_failed` event (so only with `notifyOnReviewFailed`). It goes out at
    /// once whatever `notificationFrequency` says: a digest would tell the team a day
    /// or a week late that nothing is being reviewed. Failures are logged.
    pub async fn budget_spent(&self, stop: &BudgetStop) {
        let result = async {
            let config = self.repo.config().await?;
            if !config.notify_on_review_failed {
                return Ok(());
            }
            let notification = self.titled(render_budget(stop, self.clock.now()));
            self.dispatch(&config, &notification).await
        };
        if let Err(e) = result.await {
            tracing::error!(project.id = %stop.project_id, error = %e, "notifications.budget_dispatch_failed");
        }
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
        let now = self.clock.now();
        let events = self.repo.take_digest_events(now).await?;
        if events.is_empty() {
            return Ok(0);
        }
        let digest = summarise(&events, now);
        let notification = self.titled(render_digest(frequency, &digest, now));
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
    pub(super) fn titled(&self, mut notification: Notification) -> Notification {
        notification.title = format!("[{}] {}", self.settings.system_name, notification.title);
        notification
    }

    /// One notification to every enabled channel and recipient, at most
    /// [`PARALLEL_DELIVERIES`] at once: each delivery retries on its own, so a slow
    /// or failing one delays no other.
    pub(super) async fn dispatch(
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
        futures_util::stream::iter(deliveries)
            .buffer_unordered(PARALLEL_DELIVERIES)
            .collect::<Vec<()>>()
            .await;
        Ok(())
    }

    /// Records one delivery and attempts it until it is sent, fails for good, or
    /// runs out of attempts.
    pub(super) async fn deliver(
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
    pub(super) async fn attempt(
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
        let before = self.clock.now()
            - chrono::Duration::from_std(stale_after).unwrap_or(chrono::Duration::MAX);
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
    pub(super) async fn recipient_of(
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

    pub(super) async fn recipients(
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
            Channel::Slack => config
                .slack_channels
                .iter()
                .cloned()
                .map(Recipient::ChatChannel)
                .collect(),
            Channel::Discord => config
                .discord_webhook_url
                .iter()
                .map(|_| Recipient::Configured)
                .collect(),
            Channel::Teams => config
                .teams_webhook_url
                .iter()
                .map(|_| Recipient::Configured)
                .collect(),
            Channel::Feishu => config
                .feishu_webhook_url
                .iter()
                .map(|_| Recipient::Configured)
                .collect(),
            Channel::Push => self
                .repo
                .subscriptions(None)
                .await?
                .into_iter()
                .filter(|s| s.expires_at.is_none_or(|t| t > self.clock.now()))
                .map(Recipient::Push)
                .collect(),
        })
    }
}

pub(super) fn no_recipients(channel: Channel) -> String {
    match channel {
        Channel::Email => "no emailRecipients are configured".into(),
        Channel::Webhook => "no webhookUrls are configured".into(),
        Channel::Slack => "no chatAChannels are configured".into(),
        Channel::Push => "no browser has subscribed to push notifications".into(),
        Channel::Discord | Channel::Teams | Channel::Feishu => {
            format!("no {}WebhookUrl is configured", channel.as_str())
        }
    }
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
