//! Notifications: the settings, dispatch of review events to every enabled channel
//! (each delivery recorded and retried with backoff, a bounded number of times),
//! daily and weekly digests, test deliveries, history and push subscriptions.
//! The service and its history reads are here; each job has its submodule.

mod dispatch;
mod render;
mod settings;
mod subscriptions;
#[cfg(test)]
mod tests;

pub use settings::TestResult;

use super::{FieldError, ServiceError};
use crate::model::notification::{Channel, DeliveryCount, HistoryFilter, NotificationRecord};
use crate::pagination::{Page, PageRequest};
use crate::ports::{Clock, NotificationRepository, Notifier, ReviewQueries, VapidKeyGenerator};
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

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
            .clean(self.clock.now() - chrono::Duration::days(days))
            .await?;
        tracing::info!(days, deleted, "notifications.history_cleaned");
        Ok(deleted)
    }
}
