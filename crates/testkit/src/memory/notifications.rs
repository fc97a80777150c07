//! Notification settings, delivery history, the digest queue and push subscriptions,
//! as `PgNotificationRepository` keeps them. Time windows are half-open
//! (`start <= created_at < end`); digests take events created at or before `until`.
//! History and digest rows name a review that must exist when written; a review
//! deleted since reads as `None`, as `ON DELETE SET NULL` leaves it. Push
//! subscription owners are not checked: users live in another store.

use super::MemoryStore;
use super::Tables;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use reviewd_domain::model::ReviewId;
use reviewd_domain::model::notification::{
    Channel, DeliveryCount, DeliveryStatus, HistoryFilter, NewPushSubscription, NotificationConfig,
    NotificationRecord, NotificationType, PushSubscription, ReviewEvent,
};
use reviewd_domain::ports::{NewDelivery, NotificationRepository, RepoError};
use reviewd_domain::{Page, PageRequest};
use std::collections::HashMap;
use uuid::Uuid;

#[derive(Debug, Default)]
pub(crate) struct NotificationTables {
    /// The settings row; `None` until first read or written, when the row the
    /// migration seeds is made.
    config: Option<NotificationConfig>,
    history: Vec<HistoryRow>,
    digest: Vec<DigestRow>,
    subscriptions: Vec<PushSubscription>,
}

#[derive(Debug)]
struct HistoryRow {
    record: NotificationRecord,
    payload: serde_json::Value,
    /// Moves at every change; stale pending deliveries are found by it.
    updated_at: DateTime<Utc>,
}

#[derive(Debug)]
struct DigestRow {
    kind: NotificationType,
    event: ReviewEvent,
    created_at: DateTime<Utc>,
    digested: bool,
}

/// `id` unless its review is gone.
fn live_review(t: &Tables, id: Option<ReviewId>) -> Option<ReviewId> {
    id.filter(|id| t.reviews.iter().any(|r| r.detail.item.id == *id))
}

/// A review that a new row refers to must exist (the foreign key).
fn require_review(t: &Tables, id: Option<ReviewId>) -> Result<(), RepoError> {
    match id {
        Some(_) if live_review(t, id).is_none() => Err(RepoError::NotFound),
        _ => Ok(()),
    }
}

fn record_of(t: &Tables, row: &HistoryRow) -> NotificationRecord {
    NotificationRecord {
        review_id: live_review(t, row.record.review_id),
        ..row.record.clone()
    }
}

fn selected(r: &NotificationRecord, f: &HistoryFilter) -> bool {
    f.channel.is_none_or(|c| r.channel == c)
        && f.status.is_none_or(|s| r.status == s)
        && f.notification_type.is_none_or(|k| r.notification_type == k)
        && f.review_id.is_none_or(|id| r.review_id == Some(id))
        && in_window(r.created_at, f.start, f.end)
}

fn in_window(at: DateTime<Utc>, start: Option<DateTime<Utc>>, end: Option<DateTime<Utc>>) -> bool {
    start.is_none_or(|s| at >= s) && end.is_none_or(|e| at < e)
}

/// The CHECK constraints of `notification_configs`.
fn check_config(c: &NotificationConfig) -> Result<(), RepoError> {
    if c.smtp_port == Some(0) {
        return Err(RepoError::Conflict(
            "notification_configs_smtp_port_check".into(),
        ));
    }
    if !(0..=100).contains(&c.rating_threshold) {
        return Err(RepoError::Conflict(
            "notification_configs_rating_threshold_check".into(),
        ));
    }
    Ok(())
}

fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

#[async_trait]
impl NotificationRepository for MemoryStore {
    async fn config(&self) -> Result<NotificationConfig, RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let seeded = t
            .notifications
            .config
            .get_or_insert_with(|| NotificationConfig {
                updated_at: Some(now),
                ..NotificationConfig::default()
            });
        Ok(seeded.clone())
    }

    async fn save_config(
        &self,
        config: &NotificationConfig,
    ) -> Result<NotificationConfig, RepoError> {
        check_config(config)?;
        let saved = NotificationConfig {
            updated_at: Some(self.now()),
            ..config.clone()
        };
        self.tables().notifications.config = Some(saved.clone());
        Ok(saved)
    }

    async fn add_delivery(&self, d: NewDelivery) -> Result<NotificationRecord, RepoError> {
        let now = self.now();
        let mut t = self.tables();
        require_review(&t, d.review_id)?;
        let record = NotificationRecord {
            id: Uuid::new_v4(),
            review_id: d.review_id,
            channel: d.channel,
            notification_type: d.notification_type,
            recipient: d.recipient,
            status: DeliveryStatus::Pending,
            error_message: None,
            attempts: 0,
            sent_at: None,
            created_at: now,
        };
        t.notifications.history.push(HistoryRow {
            record: record.clone(),
            payload: d.payload,
            updated_at: now,
        });
        Ok(record)
    }

    async fn finish_attempt(
        &self,
        id: Uuid,
        status: DeliveryStatus,
        error: Option<&str>,
    ) -> Result<(), RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let row = t
            .notifications
            .history
            .iter_mut()
            .find(|r| r.record.id == id);
        let row = row.ok_or(RepoError::NotFound)?;
        row.record.attempts += 1;
        row.record.status = status;
        row.record.error_message = error.map(str::to_owned);
        if status == DeliveryStatus::Sent {
            row.record.sent_at = Some(now);
        }
        row.updated_at = now;
        Ok(())
    }

    async fn take_stale_pending(
        &self,
        before: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<(NotificationRecord, serde_json::Value)>, RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let mut stale: Vec<usize> = (0..t.notifications.history.len())
            .filter(|&i| {
                let row = &t.notifications.history[i];
                row.record.status == DeliveryStatus::Pending && row.updated_at < before
            })
            .collect();
        stale.sort_by_key(|&i| t.notifications.history[i].record.created_at);
        stale.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        for &i in &stale {
            t.notifications.history[i].updated_at = now;
        }
        let t = &*t;
        Ok(stale
            .into_iter()
            .map(|i| {
                let row = &t.notifications.history[i];
                (record_of(t, row), row.payload.clone())
            })
            .collect())
    }

    async fn history(
        &self,
        filter: &HistoryFilter,
        page: PageRequest,
    ) -> Result<Page<NotificationRecord>, RepoError> {
        let t = self.tables();
        let mut all: Vec<NotificationRecord> = t
            .notifications
            .history
            .iter()
            .map(|row| record_of(&t, row))
            .filter(|r| selected(r, filter))
            .collect();
        all.sort_by_key(|r| std::cmp::Reverse((r.created_at, r.id)));
        Ok(Page::from_all(all, page))
    }

    async fn record(&self, id: Uuid) -> Result<NotificationRecord, RepoError> {
        let t = self.tables();
        let row = t.notifications.history.iter().find(|r| r.record.id == id);
        row.map(|r| record_of(&t, r)).ok_or(RepoError::NotFound)
    }

    async fn stats(
        &self,
        start: Option<DateTime<Utc>>,
        end: Option<DateTime<Utc>>,
    ) -> Result<Vec<DeliveryCount>, RepoError> {
        let t = self.tables();
        let mut counts: HashMap<(Channel, DeliveryStatus), i64> = HashMap::new();
        for r in t.notifications.history.iter().map(|row| &row.record) {
            if in_window(r.created_at, start, end) {
                *counts.entry((r.channel, r.status)).or_default() += 1;
            }
        }
        let mut counts: Vec<DeliveryCount> = counts
            .into_iter()
            .map(|((channel, status), count)| DeliveryCount {
                channel,
                status,
                count,
            })
            .collect();
        counts.sort_by_key(|c| (c.channel.as_str(), c.status.as_str()));
        Ok(counts)
    }

    async fn clean(&self, before: DateTime<Utc>) -> Result<u64, RepoError> {
        let mut t = self.tables();
        let history = &mut t.notifications.history;
        let was = history.len();
        history.retain(|r| r.record.created_at >= before);
        Ok(count(was - history.len()))
    }

    async fn add_digest_event(
        &self,
        kind: NotificationType,
        event: &ReviewEvent,
    ) -> Result<(), RepoError> {
        let now = self.now();
        let mut t = self.tables();
        require_review(&t, Some(event.review_id))?;
        t.notifications.digest.push(DigestRow {
            kind,
            event: event.clone(),
            created_at: now,
            digested: false,
        });
        Ok(())
    }

    async fn take_digest_events(
        &self,
        until: DateTime<Utc>,
    ) -> Result<Vec<(NotificationType, ReviewEvent, DateTime<Utc>)>, RepoError> {
        let mut t = self.tables();
        let mut taken = Vec::new();
        for row in &mut t.notifications.digest {
            if !row.digested && row.created_at <= until {
                row.digested = true;
                taken.push((row.kind, row.event.clone(), row.created_at));
            }
        }
        taken.sort_by_key(|(_, _, at)| *at);
        Ok(taken)
    }

    async fn subscribe(&self, sub: NewPushSubscription) -> Result<PushSubscription, RepoError> {
        let now = self.now();
        let mut t = self.tables();
        t.auth.user(sub.user_id)?;
        let subs = &mut t.notifications.subscriptions;
        let known = subs.iter_mut().find(|s| s.endpoint == sub.endpoint);
        // A known endpoint keeps its identity and history; the rest is the browser's.
        let (id, created_at, last_used_at) =
            known.as_ref().map_or((Uuid::new_v4(), now, None), |s| {
                (s.id, s.created_at, s.last_used_at)
            });
        let row = PushSubscription {
            id,
            user_id: Some(sub.user_id),
            endpoint: sub.endpoint,
            p256dh: sub.p256dh,
            auth: sub.auth,
            user_agent: sub.user_agent,
            created_at,
            last_used_at,
            expires_at: sub.expires_at,
        };
        match known {
            Some(s) => *s = row.clone(),
            None => subs.push(row.clone()),
        }
        Ok(row)
    }

    async fn subscriptions(&self, user: Option<Uuid>) -> Result<Vec<PushSubscription>, RepoError> {
        let t = self.tables();
        let mut subs: Vec<PushSubscription> = t
            .notifications
            .subscriptions
            .iter()
            .filter(|s| user.is_none() || s.user_id == user)
            .cloned()
            .collect();
        subs.sort_by_key(|s| std::cmp::Reverse((s.created_at, s.id)));
        Ok(subs)
    }

    async fn touch(&self, endpoint: &str) -> Result<(), RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let sub = t
            .notifications
            .subscriptions
            .iter_mut()
            .find(|s| s.endpoint == endpoint);
        sub.ok_or(RepoError::NotFound)?.last_used_at = Some(now);
        Ok(())
    }

    async fn unsubscribe(&self, endpoint: &str) -> Result<(), RepoError> {
        let mut t = self.tables();
        let subs = &mut t.notifications.subscriptions;
        let i = subs.iter().position(|s| s.endpoint == endpoint);
        subs.remove(i.ok_or(RepoError::NotFound)?);
        Ok(())
    }

    async fn clean_subscriptions(&self) -> Result<u64, RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let subs = &mut t.notifications.subscriptions;
        let was = subs.len();
        subs.retain(|s| s.expires_at.is_none_or(|at| at >= now));
        Ok(count(was - subs.len()))
    }
}
