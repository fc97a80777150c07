//! What notifications need from the outside: a store for the settings, history,
//! digest events and push subscriptions; one notifier per channel.

use super::RepoError;
use crate::model::ReviewId;
use crate::model::notification::{
    Channel, DeliveryCount, DeliveryStatus, HistoryFilter, NewPushSubscription, Notification,
    NotificationConfig, NotificationRecord, NotificationType, PushSubscription, Recipient,
    ReviewEvent, VapidKeys,
};
use crate::pagination::{Page, PageRequest};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// Why a delivery failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotifyError {
    /// The channel lacks a setting it needs (not worth retrying).
    #[error("not configured: {0}")]
    NotConfigured(String),
    /// The push subscription no longer exists (404/410): remove it.
    #[error("the subscription is gone ({0})")]
    Gone(u16),
    /// The receiver refused the delivery for good (4xx other than 408/429).
    #[error("{0}")]
    Rejected(String),
    /// A timeout, a connection failure, 408, 429 or 5xx: worth another attempt.
    #[error("{0}")]
    Unavailable(String),
}

impl NotifyError {
    #[must_use]
    pub fn retryable(&self) -> bool {
        matches!(self, Self::Unavailable(_))
    }
}

/// One channel's adapter.
#[async_trait]
pub trait Notifier: Send + Sync {
    fn channel(&self) -> Channel;

    /// Delivers `notification` to `recipient` under `config`, once (the caller retries).
    ///
    /// # Errors
    /// `NotConfigured` for missing settings, `Gone` for a vanished push subscription,
    /// `Rejected` for a refusal, `Unavailable` for anything worth retrying.
    async fn send(
        &self,
        config: &NotificationConfig,
        recipient: &Recipient,
        notification: &Notification,
    ) -> Result<(), NotifyError>;
}

/// Told when a review finishes (completed or failed). Must return at once: the
/// review's own work never waits for what observers do.
pub trait ReviewObserver: Send + Sync {
    /// `status` is how the review finished (`Completed` or `Failed`): observers
    /// may look at the review later, when a new round may have begun.
    fn review_finished(&self, review_id: ReviewId, status: crate::model::review::ReviewStatus);
}

/// Makes VAPID key pairs (P-256).
pub trait VapidKeyGenerator: Send + Sync {
    /// # Errors
    /// The random source failed.
    fn generate(&self) -> Result<VapidKeys, String>;
}

/// A record about to be written.
#[derive(Debug, Clone)]
pub struct NewDelivery {
    pub review_id: Option<ReviewId>,
    pub channel: Channel,
    pub notification_type: NotificationType,
    pub recipient: Option<String>,
    pub payload: serde_json::Value,
}

#[async_trait]
pub trait NotificationRepository: Send + Sync {
    /// # Errors
    /// Store failures (a config that cannot be decrypted is `Other`).
    async fn config(&self) -> Result<NotificationConfig, RepoError>;

    /// Stores the whole config (secrets encrypted), VAPID keys included.
    ///
    /// # Errors
    /// `Conflict` for values the store refuses (SMTP port 0, a rating threshold
    /// outside 0..=100); store failures.
    async fn save_config(
        &self,
        config: &NotificationConfig,
    ) -> Result<NotificationConfig, RepoError>;

    /// # Errors
    /// `NotFound` for an unknown review; store failures.
    async fn add_delivery(&self, delivery: NewDelivery) -> Result<NotificationRecord, RepoError>;

    /// Records the outcome of an attempt (`attempts` counts it).
    ///
    /// # Errors
    /// `NotFound` for an unknown record; store failures.
    async fn finish_attempt(
        &self,
        id: Uuid,
        status: DeliveryStatus,
        error: Option<&str>,
    ) -> Result<(), RepoError>;

    /// Deliveries still `pending` whose record has not changed since `before` (the
    /// process sending them stopped), oldest first, at most `limit`, with their
    /// stored payloads. Each returned record is touched, so a concurrent call does
    /// not return it again.
    ///
    /// # Errors
    /// Store failures.
    async fn take_stale_pending(
        &self,
        before: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<(NotificationRecord, serde_json::Value)>, RepoError>;

    /// # Errors
    /// Store failures.
    async fn history(
        &self,
        filter: &HistoryFilter,
        page: PageRequest,
    ) -> Result<Page<NotificationRecord>, RepoError>;

    /// # Errors
    /// `NotFound`.
    async fn record(&self, id: Uuid) -> Result<NotificationRecord, RepoError>;

    /// # Errors
    /// Store failures.
    async fn stats(
        &self,
        start: Option<DateTime<Utc>>,
        end: Option<DateTime<Utc>>,
    ) -> Result<Vec<DeliveryCount>, RepoError>;

    /// Deletes records created before `before`; returns how many.
    ///
    /// # Errors
    /// Store failures.
    async fn clean(&self, before: DateTime<Utc>) -> Result<u64, RepoError>;

    /// Holds an event for the next digest.
    ///
    /// # Errors
    /// `NotFound` for an unknown review; store failures.
    async fn add_digest_event(
        &self,
        kind: NotificationType,
        event: &ReviewEvent,
    ) -> Result<(), RepoError>;

    /// Takes the events not yet digested up to `until` (marks them digested) and
    /// returns them oldest first, with their types.
    ///
    /// # Errors
    /// Store failures.
    async fn take_digest_events(
        &self,
        until: DateTime<Utc>,
    ) -> Result<Vec<(NotificationType, ReviewEvent, DateTime<Utc>)>, RepoError>;

    /// Creates the subscription or, for a known endpoint, updates its keys and owner.
    ///
    /// # Errors
    /// `NotFound` for an unknown user; store failures.
    async fn subscribe(&self, sub: NewPushSubscription) -> Result<PushSubscription, RepoError>;

    /// # Errors
    /// Store failures.
    async fn subscriptions(&self, user: Option<Uuid>) -> Result<Vec<PushSubscription>, RepoError>;

    /// # Errors
    /// `NotFound` for an unknown endpoint.
    async fn touch(&self, endpoint: &str) -> Result<(), RepoError>;

    /// # Errors
    /// `NotFound` for an unknown endpoint.
    async fn unsubscribe(&self, endpoint: &str) -> Result<(), RepoError>;

    /// Removes subscriptions whose `expires_at` has passed; returns how many.
    ///
    /// # Errors
    /// Store failures.
    async fn clean_subscriptions(&self) -> Result<u64, RepoError>;
}
