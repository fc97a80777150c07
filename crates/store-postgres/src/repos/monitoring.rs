//! Monitoring samples (system, database, API buckets), their history and pruning,
//! and the state counts the dashboard shows.

use super::{conn, count, paginate};
use crate::PgPool;
use crate::error::map_diesel_error;
use crate::rows::{DatabaseRow, SystemRow, to_u32};
use crate::schema::{
    api_metrics, database_metrics, health_checks, job_runs, notification_history, review_tasks,
    reviews, runners, system_metrics,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::dsl::count_star;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Double, Integer, Nullable, Text};
use diesel_async::RunQueryDsl;
use reviewd_domain::model::monitoring::{
    ApiBucket, DatabaseSample, PruneReport, StateCounts, SystemSample,
};
use reviewd_domain::ports::{MonitoringRepository, RepoError};
use reviewd_domain::{Page, PageRequest};
use std::time::Instant;

pub struct PgMonitoringRepository {
    pool: PgPool,
}

impl PgMonitoringRepository {
    #[must_use]
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[derive(QueryableByName)]
struct Connections {
    #[diesel(sql_type = Integer)]
    total: i32,
    #[diesel(sql_type = Integer)]
    active: i32,
    #[diesel(sql_type = Integer)]
    idle: i32,
    #[diesel(sql_type = Nullable<Integer>)]
    max_connections: Option<i32>,
    #[diesel(sql_type = BigInt)]
    size: i64,
}

#[derive(QueryableByName)]
struct RouteTotals {
    #[diesel(sql_type = Text)]
    route: String,
    #[diesel(sql_type = Text)]
    method: String,
    #[diesel(sql_type = Integer)]
    status_code: i32,
    #[diesel(sql_type = BigInt)]
    requests: i64,
    #[diesel(sql_type = Double)]
    total_latency_ms: f64,
    #[diesel(sql_type = Double)]
    max_latency_ms: f64,
}

fn opt_i32(n: Option<u32>) -> Option<i32> {
    n.map(|v| i32::try_from(v).unwrap_or(i32::MAX))
}

#[async_trait]
impl MonitoringRepository for PgMonitoringRepository {
    async fn sample_database(&self) -> Result<DatabaseSample, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let started = Instant::now();
        diesel::sql_query("SELECT 1")
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let latency = started.elapsed().as_secs_f64() * 1000.0;
        // Connections to this database only; `max_connections` is the server's bound.
        let c: Connections = diesel::sql_query(
            "SELECT count(*)::int AS total, \
                    count(*) FILTER (WHERE state = 'active')::int AS active, \
                    count(*) FILTER (WHERE state LIKE 'idle%')::int AS idle, \
                    current_setting('max_connections')::int AS max_connections, \
                    pg_database_size(current_database())::bigint AS size \
             FROM pg_stat_activity WHERE datname = current_database()",
        )
        .get_result(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        drop(conn);
        let status = self.pool.status();
        Ok(DatabaseSample {
            total_connections: to_u32(c.total),
            active_connections: to_u32(c.active),
            idle_connections: to_u32(c.idle),
            max_connections: c.max_connections.map(to_u32),
            database_size_bytes: count(c.size),
            query_latency_ms: (latency * 1000.0).round() / 1000.0,
            pool_size: u32::try_from(status.max_size).ok(),
            pool_available: u32::try_from(status.available).ok(),
            collected_at: Utc::now(),
        })
    }

    async fn save_system(&self, s: &SystemSample) -> Result<(), RepoError> {
        let mut conn = conn(&self.pool).await?;
        let load = s.load_average;
        diesel::insert_into(system_metrics::table)
            .values((
                system_metrics::instance.eq(&s.instance),
                system_metrics::cpu_usage_percent.eq(s.cpu_usage_percent),
                system_metrics::cpu_count.eq(i32::try_from(s.cpu_count).unwrap_or(i32::MAX)),
                system_metrics::memory_used_bytes.eq(to_i64(s.memory_used_bytes)),
                system_metrics::memory_total_bytes.eq(to_i64(s.memory_total_bytes)),
                system_metrics::process_memory_bytes.eq(s.process_memory_bytes.map(to_i64)),
                system_metrics::uptime_seconds.eq(to_i64(s.uptime_seconds)),
                system_metrics::process_uptime_seconds.eq(to_i64(s.process_uptime_seconds)),
                system_metrics::load_avg_1.eq(load.map(|l| l[0])),
                system_metrics::load_avg_5.eq(load.map(|l| l[1])),
                system_metrics::load_avg_15.eq(load.map(|l| l[2])),
                system_metrics::collected_at.eq(s.collected_at),
            ))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(())
    }

    async fn save_database(&self, s: &DatabaseSample) -> Result<(), RepoError> {
        let mut conn = conn(&self.pool).await?;
        let n = |v: u32| i32::try_from(v).unwrap_or(i32::MAX);
        diesel::insert_into(database_metrics::table)
            .values((
                database_metrics::total_connections.eq(n(s.total_connections)),
                database_metrics::active_connections.eq(n(s.active_connections)),
                database_metrics::idle_connections.eq(n(s.idle_connections)),
                database_metrics::max_connections.eq(opt_i32(s.max_connections)),
                database_metrics::database_size_bytes.eq(to_i64(s.database_size_bytes)),
                database_metrics::query_latency_ms.eq(s.query_latency_ms),
                database_metrics::pool_size.eq(opt_i32(s.pool_size)),
                database_metrics::pool_available.eq(opt_i32(s.pool_available)),
                database_metrics::collected_at.eq(s.collected_at),
            ))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(())
    }

    async fn system_history(
        &self,
        page: PageRequest,
        since: Option<DateTime<Utc>>,
    ) -> Result<Page<SystemSample>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        // PostgreSQL's timestamps start at 4713 BC: far enough back for "everything".
        let since = since.unwrap_or(DateTime::<Utc>::UNIX_EPOCH);
        let collected = || system_metrics::table.filter(system_metrics::collected_at.ge(since));
        let rows = collected()
            .order(system_metrics::collected_at.desc())
            .select(SystemRow::as_select());
        paginate(
            &mut conn,
            page,
            collected().count(),
            rows,
            |r: SystemRow| Ok(r.into()),
        )
        .await
    }

    async fn database_history(
        &self,
        page: PageRequest,
        since: Option<DateTime<Utc>>,
    ) -> Result<Page<DatabaseSample>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        // PostgreSQL's timestamps start at 4713 BC: far enough back for "everything".
        let since = since.unwrap_or(DateTime::<Utc>::UNIX_EPOCH);
        let collected = || database_metrics::table.filter(database_metrics::collected_at.ge(since));
        let rows = collected()
            .order(database_metrics::collected_at.desc())
            .select(DatabaseRow::as_select());
        paginate(
            &mut conn,
            page,
            collected().count(),
            rows,
            |r: DatabaseRow| Ok(r.into()),
        )
        .await
    }

    async fn add_api_buckets(&self, buckets: &[ApiBucket]) -> Result<(), RepoError> {
        if buckets.is_empty() {
            return Ok(());
        }
        let mut conn = conn(&self.pool).await?;
        // One statement per bucket: a multi-row upsert would fail when two rows of the
        // batch hit the same key, and a flush holds at most a few dozen buckets.
        for b in buckets {
            let errors = if b.is_error() { b.request_count } else { 0 };
            diesel::insert_into(api_metrics::table)
                .values((
                    api_metrics::bucket_start.eq(b.bucket_start),
                    api_metrics::route.eq(&b.route),
                    api_metrics::method.eq(&b.method),
                    api_metrics::status_code.eq(i32::from(b.status_code)),
                    api_metrics::request_count.eq(to_i64(b.request_count)),
                    api_metrics::error_count.eq(to_i64(errors)),
                    api_metrics::total_latency_ms.eq(b.total_latency_ms),
                    api_metrics::max_latency_ms.eq(b.max_latency_ms),
                ))
                .on_conflict((
                    api_metrics::bucket_start,
                    api_metrics::route,
                    api_metrics::method,
                    api_metrics::status_code,
                ))
                .do_update()
                .set((
                    api_metrics::request_count
                        .eq(api_metrics::request_count + to_i64(b.request_count)),
                    api_metrics::error_count.eq(api_metrics::error_count + to_i64(errors)),
                    api_metrics::total_latency_ms
                        .eq(api_metrics::total_latency_ms + b.total_latency_ms),
                    api_metrics::max_latency_ms.eq(diesel::dsl::sql::<Double>(
                        "GREATEST(api_metrics.max_latency_ms, EXCLUDED.max_latency_ms)",
                    )),
                ))
                .execute(&mut conn)
                .await
                .map_err(map_diesel_error)?;
        }
        Ok(())
    }

    async fn api_buckets(&self, since: DateTime<Utc>) -> Result<Vec<ApiBucket>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let rows: Vec<RouteTotals> = diesel::sql_query(
            "SELECT route, method, status_code, \
                    sum(request_count)::bigint AS requests, \
                    sum(total_latency_ms) AS total_latency_ms, \
                    max(max_latency_ms) AS max_latency_ms \
             FROM api_metrics WHERE bucket_start >= $1 \
             GROUP BY route, method, status_code",
        )
        .bind::<diesel::sql_types::Timestamptz, _>(since)
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(rows
            .into_iter()
            .map(|r| ApiBucket {
                bucket_start: since,
                route: r.route,
                method: r.method,
                status_code: u16::try_from(r.status_code).unwrap_or(0),
                request_count: count(r.requests),
                total_latency_ms: r.total_latency_ms,
                max_latency_ms: r.max_latency_ms,
            })
            .collect())
    }

    async fn prune(&self, before: DateTime<Utc>) -> Result<PruneReport, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let system_metrics = deleted(
            diesel::delete(system_metrics::table.filter(system_metrics::collected_at.lt(before)))
                .execute(&mut conn)
                .await,
        )?;
        let database_metrics = deleted(
            diesel::delete(
                database_metrics::table.filter(database_metrics::collected_at.lt(before)),
            )
            .execute(&mut conn)
            .await,
        )?;
        let api_metrics = deleted(
            diesel::delete(api_metrics::table.filter(api_metrics::bucket_start.lt(before)))
                .execute(&mut conn)
                .await,
        )?;
        let health_checks = deleted(
            diesel::delete(health_checks::table.filter(health_checks::checked_at.lt(before)))
                .execute(&mut conn)
                .await,
        )?;
        let job_runs = deleted(
            diesel::delete(
                job_runs::table
                    .filter(job_runs::started_at.lt(before))
                    .filter(job_runs::status.ne("running")),
            )
            .execute(&mut conn)
            .await,
        )?;
        Ok(PruneReport {
            system_metrics,
            database_metrics,
            api_metrics,
            health_checks,
            job_runs,
        })
    }

    async fn state_counts(
        &self,
        runner_offline_before: DateTime<Utc>,
    ) -> Result<StateCounts, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let reviews: Vec<(String, i64)> = reviews::table
            .group_by(reviews::status)
            .select((reviews::status, count_star()))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let runners: Vec<(String, Option<DateTime<Utc>>)> = runners::table
            .select((runners::status, runners::last_heartbeat))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let notifications: Vec<(String, String, i64)> = notification_history::table
            .group_by((notification_history::channel, notification_history::status))
            .select((
                notification_history::channel,
                notification_history::status,
                count_star(),
            ))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let mut by_runner_status = std::collections::BTreeMap::<String, u64>::new();
        for (status, beat) in runners {
            let silent = beat.is_none_or(|b| b < runner_offline_before);
            let shown = if silent { "offline".to_owned() } else { status };
            *by_runner_status.entry(shown).or_default() += 1;
        }
        let (ai_calls, ai_costs) = super::costs::totals_by_model(&mut conn).await?;
        let oldest_queued_task_at: Option<DateTime<Utc>> = review_tasks::table
            // `pending`: the status of tasks queued before it was named `queued`.
            .filter(review_tasks::status.eq_any(["queued", "pending"]))
            .select(diesel::dsl::min(review_tasks::created_at))
            .first(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(StateCounts {
            ai_costs,
            ai_calls,
            oldest_queued_task_at,
            reviews: reviews.into_iter().map(|(s, n)| (s, count(n))).collect(),
            runners: by_runner_status.into_iter().collect(),
            notifications: notifications
                .into_iter()
                .map(|(c, s, n)| (c, s, count(n)))
                .collect(),
        })
    }
}

fn deleted(result: Result<usize, diesel::result::Error>) -> Result<u64, RepoError> {
    result
        .map(|n| u64::try_from(n).unwrap_or(u64::MAX))
        .map_err(map_diesel_error)
}
