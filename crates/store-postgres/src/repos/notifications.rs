//! Notification settings (one row, secrets sealed), delivery history, the digest queue
//! and browser push subscriptions.
//!
//! Time windows (`HistoryFilter::start`/`end`, `stats(start, end)`) are half-open:
//! `start <= created_at < end`, so consecutive windows never count a record twice.
//! `take_digest_events(until)` takes events created at or before `until`.

use super::review_queries::days::{end_day, first_day, outside, whole_days};
use super::{PgConn, conn, count, paginate_with_total};
use crate::PgPool;
use crate::error::{corrupt, map_diesel_error};
use crate::rows::{
    ConfigRow, HistoryRow, SubscriptionRow, channel, delivery_status, notification_type,
    review_event,
};
use crate::schema::push_subscriptions;
use crate::schema::{notification_configs, notification_digest_events, notification_history};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::dsl::now;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Date, Jsonb, Nullable, Text, Timestamptz};
use diesel_async::{AsyncConnection, RunQueryDsl};
use reviewd_crypto::SecretBox;
use reviewd_domain::model::notification::{
    DeliveryCount, DeliveryStatus, HistoryFilter, NewPushSubscription, NotificationConfig,
    NotificationRecord, NotificationType, PushSubscription, ReviewEvent,
};
use reviewd_domain::ports::{NewDelivery, NotificationRepository, RepoError};
use reviewd_domain::{Page, PageRequest};
use uuid::Uuid;

pub struct PgNotificationRepository {
    pool: PgPool,
    secrets: SecretBox,
}

impl PgNotificationRepository {
    #[must_use]
    pub fn new(pool: PgPool, secrets: SecretBox) -> Self {
        Self { pool, secrets }
    }
}

/// The history rows `filter` selects (`start <= created_at < end`).
fn filtered(filter: &HistoryFilter) -> notification_history::BoxedQuery<'static, Pg> {
    let mut query = notification_history::table.into_boxed();
    if let Some(c) = filter.channel {
        query = query.filter(notification_history::channel.eq(c.as_str()));
    }
    if let Some(s) = filter.status {
        query = query.filter(notification_history::status.eq(s.as_str()));
    }
    if let Some(t) = filter.notification_type {
        query = query.filter(notification_history::notification_type.eq(t.as_str()));
    }
    if let Some(id) = filter.review_id {
        query = query.filter(notification_history::review_id.eq(id.0));
    }
    if let Some(start) = filter.start {
        query = query.filter(notification_history::created_at.ge(start));
    }
    if let Some(end) = filter.end {
        query = query.filter(notification_history::created_at.lt(end));
    }
    query
}

#[derive(QueryableByName)]
struct TotalRow {
    #[diesel(sql_type = BigInt)]
    total: i64,
}

/// The history's exact size under `filter` (no review): the daily counts kept by the
/// trigger of migration `list_stats` for the whole days, the rows for the partial ones.
async fn history_total(conn: &mut PgConn, filter: &HistoryFilter) -> Result<u64, RepoError> {
    let days = whole_days(filter.start, filter.end);
    let same = "($1::text IS NULL OR {t}.channel = $1) AND ($2::text IS NULL OR {t}.status = $2) \
                AND ($3::text IS NULL OR {t}.notification_type = $3)";
    let query = format!(
        "SELECT (coalesce((SELECT sum(deliveries) FROM notification_daily_counts d
                           WHERE {on_days} AND d.day >= {first} AND d.day < {end}), 0)
                 + (SELECT count(*) FROM notification_history h
                    WHERE {on_rows} AND ($6::timestamptz IS NULL OR h.created_at >= $6)
                      AND ($7::timestamptz IS NULL OR h.created_at < $7) AND {outside}))::bigint
                AS total",
        on_days = same.replace("{t}", "d"),
        on_rows = same.replace("{t}", "h"),
        first = first_day("$4"),
        end = end_day("$5"),
        outside = outside("h.created_at", "$4", "$5"),
    );
    let row: TotalRow = diesel::sql_query(query)
        .bind::<Nullable<Text>, _>(filter.channel.map(|c| c.as_str()))
        .bind::<Nullable<Text>, _>(filter.status.map(|s| s.as_str()))
        .bind::<Nullable<Text>, _>(filter.notification_type.map(|t| t.as_str()))
        .bind::<Nullable<Date>, _>(days.first)
        .bind::<Nullable<Date>, _>(days.end)
        .bind::<Nullable<Timestamptz>, _>(filter.start)
        .bind::<Nullable<Timestamptz>, _>(filter.end)
        .get_result(conn)
        .await
        .map_err(map_diesel_error)?;
    Ok(count(row.total))
}

#[derive(QueryableByName)]
struct CountRow {
    #[diesel(sql_type = Text)]
    channel: String,
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[derive(QueryableByName)]
struct DigestRow {
    #[diesel(sql_type = diesel::sql_types::Uuid)]
    id: Uuid,
    #[diesel(sql_type = Text)]
    event_type: String,
    #[diesel(sql_type = Jsonb)]
    payload: serde_json::Value,
    #[diesel(sql_type = Timestamptz)]
    created_at: DateTime<Utc>,
}

/// A digest take's failure: the database's, or an event it cannot read (which rolls
/// the take back).
enum TakeError {
    Db(diesel::result::Error),
    Corrupt(RepoError),
}

impl From<diesel::result::Error> for TakeError {
    fn from(e: diesel::result::Error) -> Self {
        Self::Db(e)
    }
}

fn deleted(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

#[async_trait]
impl NotificationRepository for PgNotificationRepository {
    async fn config(&self) -> Result<NotificationConfig, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let row: Option<ConfigRow> = notification_configs::table
            .find(1_i16)
            .select(ConfigRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        // The migration creates the row; without it, the settings are the defaults.
        row.map_or_else(
            || Ok(NotificationConfig::default()),
            |r| r.into_config(&self.secrets),
        )
    }

    async fn save_config(
        &self,
        config: &NotificationConfig,
    ) -> Result<NotificationConfig, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let values = ConfigRow::sealed(config, &self.secrets);
        // `id` takes its default (1) on insert; the conflict is always on that row.
        diesel::insert_into(notification_configs::table)
            .values(&values)
            .on_conflict(notification_configs::id)
            .do_update()
            .set(&values)
            .returning(ConfigRow::as_returning())
            .get_result::<ConfigRow>(&mut conn)
            .await
            .map_err(map_diesel_error)?
            .into_config(&self.secrets)
    }

    async fn add_delivery(&self, d: NewDelivery) -> Result<NotificationRecord, RepoError> {
        let mut conn = conn(&self.pool).await?;
        diesel::insert_into(notification_history::table)
            .values((
                notification_history::review_id.eq(d.review_id.map(Uuid::from)),
                notification_history::channel.eq(d.channel.as_str()),
                notification_history::notification_type.eq(d.notification_type.as_str()),
                notification_history::recipient.eq(d.recipient),
                notification_history::status.eq(DeliveryStatus::Pending.as_str()),
                notification_history::attempts.eq(0),
                notification_history::payload.eq(Some(d.payload)),
            ))
            .returning(HistoryRow::as_returning())
            .get_result::<HistoryRow>(&mut conn)
            .await
            .map_err(map_diesel_error)?
            .try_into()
    }

    async fn finish_attempt(
        &self,
        id: Uuid,
        status: DeliveryStatus,
        error: Option<&str>,
    ) -> Result<(), RepoError> {
        let mut conn = conn(&self.pool).await?;
        let n = diesel::sql_query(
            "UPDATE notification_history
                SET attempts = attempts + 1, status = $2, error_message = $3,
                    sent_at = CASE WHEN $2 = 'sent' THEN now() ELSE sent_at END
              WHERE id = $1",
        )
        .bind::<diesel::sql_types::Uuid, _>(id)
        .bind::<Text, _>(status.as_str())
        .bind::<Nullable<Text>, _>(error)
        .execute(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        if n == 0 {
            return Err(RepoError::NotFound);
        }
        Ok(())
    }

    async fn history(
        &self,
        filter: &HistoryFilter,
        page: PageRequest,
    ) -> Result<Page<NotificationRecord>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let rows = filtered(filter)
            .order((
                notification_history::created_at.desc(),
                notification_history::id.desc(),
            ))
            .select(HistoryRow::as_select());
        let total = if filter.review_id.is_none() {
            history_total(&mut conn, filter).await?
        } else {
            // One review's deliveries: few rows, counted through their index.
            let n: i64 = filtered(filter)
                .count()
                .get_result(&mut conn)
                .await
                .map_err(map_diesel_error)?;
            count(n)
        };
        paginate_with_total(&mut conn, page, total, rows, NotificationRecord::try_from).await
    }

    async fn take_stale_pending(
        &self,
        before: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<(NotificationRecord, serde_json::Value)>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        // Touching updated_at claims the rows: SKIP LOCKED and the new timestamp keep
        // a concurrent call from taking them too.
        let ids: Vec<Uuid> = diesel::sql_query(
            "UPDATE notification_history SET updated_at = now()
              WHERE id IN (SELECT id FROM notification_history
                            WHERE status = 'pending' AND updated_at < $1
                            ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)
              RETURNING id",
        )
        .bind::<diesel::sql_types::Timestamptz, _>(before)
        .bind::<diesel::sql_types::BigInt, _>(i64::from(limit))
        .load::<IdRow>(&mut conn)
        .await
        .map_err(map_diesel_error)?
        .into_iter()
        .map(|r| r.id)
        .collect();
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let rows: Vec<(HistoryRow, Option<serde_json::Value>)> = notification_history::table
            .filter(notification_history::id.eq_any(&ids))
            .order(notification_history::created_at)
            .select((HistoryRow::as_select(), notification_history::payload))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter()
            .map(|(row, payload)| Ok((row.try_into()?, payload.unwrap_or_default())))
            .collect()
    }

    async fn record(&self, id: Uuid) -> Result<NotificationRecord, RepoError> {
        let mut conn = conn(&self.pool).await?;
        notification_history::table
            .find(id)
            .select(HistoryRow::as_select())
            .first::<HistoryRow>(&mut conn)
            .await
            .map_err(map_diesel_error)?
            .try_into()
    }

    async fn stats(
        &self,
        start: Option<DateTime<Utc>>,
        end: Option<DateTime<Utc>>,
    ) -> Result<Vec<DeliveryCount>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let rows: Vec<CountRow> = diesel::sql_query(
            "SELECT channel, status, count(*) AS n FROM notification_history
              WHERE ($1::timestamptz IS NULL OR created_at >= $1)
                AND ($2::timestamptz IS NULL OR created_at < $2)
              GROUP BY channel, status
              ORDER BY channel, status",
        )
        .bind::<Nullable<Timestamptz>, _>(start)
        .bind::<Nullable<Timestamptz>, _>(end)
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        rows.into_iter()
            .map(|r| {
                let what = || "notification stats".to_owned();
                Ok(DeliveryCount {
                    channel: channel(&r.channel, what)?,
                    status: delivery_status(&r.status, what)?,
                    count: r.n,
                })
            })
            .collect()
    }

    async fn clean(&self, before: DateTime<Utc>) -> Result<u64, RepoError> {
        let mut conn = conn(&self.pool).await?;
        diesel::delete(
            notification_history::table.filter(notification_history::created_at.lt(before)),
        )
        .execute(&mut conn)
        .await
        .map(deleted)
        .map_err(map_diesel_error)
    }

    async fn add_digest_event(
        &self,
        kind: NotificationType,
        event: &ReviewEvent,
    ) -> Result<(), RepoError> {
        let mut conn = conn(&self.pool).await?;
        let payload = serde_json::to_value(event).map_err(|e| RepoError::Other(e.into()))?;
        diesel::insert_into(notification_digest_events::table)
            .values((
                notification_digest_events::review_id.eq(Some(event.review_id.0)),
                notification_digest_events::event_type.eq(kind.as_str()),
                notification_digest_events::payload.eq(payload),
            ))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(())
    }

    async fn take_digest_events(
        &self,
        until: DateTime<Utc>,
    ) -> Result<Vec<(NotificationType, ReviewEvent, DateTime<Utc>)>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        // One statement: a replica running the same digest at once blocks on the rows
        // taken here, then finds them digested and skips them, so no event goes out
        // twice. The transaction only undoes the marking when a payload cannot be read:
        // nothing is marked digested that is not returned.
        conn.transaction::<_, TakeError, _>(async move |conn| {
            let rows: Vec<DigestRow> = diesel::sql_query(
                "WITH taken AS (
                    UPDATE notification_digest_events SET digested_at = now()
                     WHERE digested_at IS NULL AND created_at <= $1
                    RETURNING id, event_type, payload, created_at)
                 SELECT id, event_type, payload, created_at FROM taken ORDER BY created_at, id",
            )
            .bind::<Timestamptz, _>(until)
            .load(conn)
            .await?;
            rows.into_iter()
                .map(|r| {
                    let what = || format!("digest event {}", r.id);
                    let kind = notification_type(&r.event_type, what)?;
                    let event = review_event(&r.payload)
                        .map_err(|e| corrupt(format!("{}: {e}", what())))?;
                    Ok((kind, event, r.created_at))
                })
                .collect::<Result<Vec<_>, RepoError>>()
                .map_err(TakeError::Corrupt)
        })
        .await
        .map_err(|e| match e {
            TakeError::Db(e) => map_diesel_error(e),
            TakeError::Corrupt(e) => e,
        })
    }

    async fn subscribe(&self, sub: NewPushSubscription) -> Result<PushSubscription, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let row: SubscriptionRow = diesel::insert_into(push_subscriptions::table)
            .values((
                push_subscriptions::user_id.eq(Some(sub.user_id)),
                push_subscriptions::endpoint.eq(&sub.endpoint),
                push_subscriptions::p256dh.eq(&sub.p256dh),
                push_subscriptions::auth.eq(&sub.auth),
                push_subscriptions::user_agent.eq(&sub.user_agent),
                push_subscriptions::expires_at.eq(sub.expires_at),
            ))
            .on_conflict(push_subscriptions::endpoint)
            .do_update()
            .set((
                push_subscriptions::user_id.eq(Some(sub.user_id)),
                push_subscriptions::p256dh.eq(&sub.p256dh),
                push_subscriptions::auth.eq(&sub.auth),
                push_subscriptions::user_agent.eq(&sub.user_agent),
                push_subscriptions::expires_at.eq(sub.expires_at),
            ))
            .returning(SubscriptionRow::as_returning())
            .get_result(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(row.into())
    }

    async fn subscriptions(&self, user: Option<Uuid>) -> Result<Vec<PushSubscription>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let mut query = push_subscriptions::table
            .select(SubscriptionRow::as_select())
            .into_boxed();
        if let Some(user) = user {
            query = query.filter(push_subscriptions::user_id.eq(user));
        }
        let rows: Vec<SubscriptionRow> = query
            .order((
                push_subscriptions::created_at.desc(),
                push_subscriptions::id.desc(),
            ))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(rows.into_iter().map(PushSubscription::from).collect())
    }

    async fn touch(&self, endpoint: &str) -> Result<(), RepoError> {
        let mut conn = conn(&self.pool).await?;
        let n = diesel::update(
            push_subscriptions::table.filter(push_subscriptions::endpoint.eq(endpoint)),
        )
        .set(push_subscriptions::last_used_at.eq(now))
        .execute(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        if n == 0 {
            return Err(RepoError::NotFound);
        }
        Ok(())
    }

    async fn unsubscribe(&self, endpoint: &str) -> Result<(), RepoError> {
        let mut conn = conn(&self.pool).await?;
        let n = diesel::delete(
            push_subscriptions::table.filter(push_subscriptions::endpoint.eq(endpoint)),
        )
        .execute(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        if n == 0 {
            return Err(RepoError::NotFound);
        }
        Ok(())
    }

    async fn clean_subscriptions(&self) -> Result<u64, RepoError> {
        let mut conn = conn(&self.pool).await?;
        diesel::delete(push_subscriptions::table.filter(push_subscriptions::expires_at.lt(now)))
            .execute(&mut conn)
            .await
            .map(deleted)
            .map_err(map_diesel_error)
    }
}

#[derive(QueryableByName)]
struct IdRow {
    #[diesel(sql_type = diesel::sql_types::Uuid)]
    id: Uuid,
}
