//! Monitoring: samples of the host and the database taken on demand and periodically,
//! API statistics from per-minute buckets, and their retention.
//!
//! Each replica counts its own requests in memory (`ApiTally`) and adds them into
//! shared minute buckets when it flushes, so statistics cover every replica without a
//! database write per request.

use super::ServiceError;
use crate::model::monitoring::{
    ApiBucket, ApiStats, DatabaseSample, PruneReport, StateCounts, SystemSample,
};
use crate::pagination::{Page, PageRequest};
use crate::ports::{MonitoringRepository, SystemSampler};
use chrono::{DateTime, DurationRound, TimeDelta, Utc};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

type BucketKey = (DateTime<Utc>, String, String, u16);

/// Requests counted in memory since the last flush.
#[derive(Default)]
pub struct ApiTally {
    buckets: Mutex<HashMap<BucketKey, (u64, f64, f64)>>,
}

impl ApiTally {
    /// Counts one answered request in its minute.
    pub fn record(&self, route: &str, method: &str, status: u16, latency_ms: f64) {
        self.record_at(Utc::now(), route, method, status, latency_ms);
    }

    fn record_at(&self, at: DateTime<Utc>, route: &str, method: &str, status: u16, ms: f64) {
        let minute = at.duration_trunc(TimeDelta::minutes(1)).unwrap_or(at);
        if let Ok(mut buckets) = self.buckets.lock() {
            let entry = buckets
                .entry((minute, route.to_owned(), method.to_owned(), status))
                .or_insert((0, 0.0, 0.0));
            entry.0 += 1;
            entry.1 += ms;
            entry.2 = entry.2.max(ms);
        }
    }

    /// Takes what was counted, leaving the tally empty.
    #[must_use]
    pub fn drain(&self) -> Vec<ApiBucket> {
        let taken = match self.buckets.lock() {
            Ok(mut buckets) => std::mem::take(&mut *buckets),
            Err(_) => return Vec::new(),
        };
        taken
            .into_iter()
            .map(
                |((bucket_start, route, method, status_code), (n, total, max))| ApiBucket {
                    bucket_start,
                    route,
                    method,
                    status_code,
                    request_count: n,
                    total_latency_ms: total,
                    max_latency_ms: max,
                },
            )
            .collect()
    }

    /// Puts buckets back after a failed flush, so a store outage loses no counts.
    pub fn restore(&self, buckets: Vec<ApiBucket>) {
        if let Ok(mut map) = self.buckets.lock() {
            for b in buckets {
                let entry = map
                    .entry((b.bucket_start, b.route, b.method, b.status_code))
                    .or_insert((0, 0.0, 0.0));
                entry.0 += b.request_count;
                entry.1 += b.total_latency_ms;
                entry.2 = entry.2.max(b.max_latency_ms);
            }
        }
    }
}

/// What one collection stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Collected {
    pub system: SystemSample,
    pub database: DatabaseSample,
    /// Request buckets this replica flushed.
    pub api_buckets_flushed: usize,
}

/// The overview: the host and database now, and the API over the last 24 hours.
#[derive(Debug, Clone, PartialEq)]
pub struct Overview {
    pub system: SystemSample,
    pub database: DatabaseSample,
    pub uptime: u64,
    pub api: ApiStats,
}

pub struct MonitoringService {
    repo: Arc<dyn MonitoringRepository>,
    sampler: Arc<dyn SystemSampler>,
    tally: Arc<ApiTally>,
}

impl MonitoringService {
    pub fn new(
        repo: Arc<dyn MonitoringRepository>,
        sampler: Arc<dyn SystemSampler>,
        tally: Arc<ApiTally>,
    ) -> Self {
        Self {
            repo,
            sampler,
            tally,
        }
    }

    #[must_use]
    pub fn tally(&self) -> &Arc<ApiTally> {
        &self.tally
    }

    /// Adds this replica's counted requests into the shared buckets.
    ///
    /// # Errors
    /// Store failures (the counts are kept for the next flush).
    pub async fn flush_api(&self) -> Result<usize, ServiceError> {
        let buckets = self.tally.drain();
        if buckets.is_empty() {
            return Ok(0);
        }
        match self.repo.add_api_buckets(&buckets).await {
            Ok(()) => Ok(buckets.len()),
            Err(e) => {
                self.tally.restore(buckets);
                Err(e.into())
            }
        }
    }

    /// Samples the host and the database, stores both and flushes the API tally.
    ///
    /// # Errors
    /// Store failures.
    pub async fn collect(&self) -> Result<Collected, ServiceError> {
        let system = self.sampler.sample().await;
        let database = self.repo.sample_database().await?;
        self.repo.save_system(&system).await?;
        self.repo.save_database(&database).await?;
        let api_buckets_flushed = self.flush_api().await?;
        Ok(Collected {
            system,
            database,
            api_buckets_flushed,
        })
    }

    /// # Errors
    /// Store failures.
    pub async fn overview(&self) -> Result<Overview, ServiceError> {
        let system = self.sampler.sample().await;
        let database = self.repo.sample_database().await?;
        let api = self.api_stats(Utc::now() - TimeDelta::hours(24)).await?;
        Ok(Overview {
            uptime: system.process_uptime_seconds,
            system,
            database,
            api,
        })
    }

    /// Statistics of every replica's requests from `since` on (this replica's
    /// unflushed counts included).
    ///
    /// # Errors
    /// Store failures.
    pub async fn api_stats(&self, since: DateTime<Utc>) -> Result<ApiStats, ServiceError> {
        self.flush_api().await?;
        let buckets = self.repo.api_buckets(since).await?;
        Ok(ApiStats::from_buckets(since, &buckets))
    }

    /// # Errors
    /// Store failures.
    pub async fn system_history(
        &self,
        page: PageRequest,
        since: Option<DateTime<Utc>>,
    ) -> Result<Page<SystemSample>, ServiceError> {
        Ok(self.repo.system_history(page, since).await?)
    }

    /// # Errors
    /// Store failures.
    pub async fn database_history(
        &self,
        page: PageRequest,
        since: Option<DateTime<Utc>>,
    ) -> Result<Page<DatabaseSample>, ServiceError> {
        Ok(self.repo.database_history(page, since).await?)
    }

    /// Deletes what is older than `retention_days` days.
    ///
    /// # Errors
    /// Store failures.
    pub async fn prune(&self, retention_days: u32) -> Result<PruneReport, ServiceError> {
        let before = Utc::now() - TimeDelta::days(i64::from(retention_days));
        Ok(self.repo.prune(before).await?)
    }

    /// # Errors
    /// Store failures.
    pub async fn state_counts(
        &self,
        runner_offline_before: DateTime<Utc>,
    ) -> Result<StateCounts, ServiceError> {
        Ok(self.repo.state_counts(runner_offline_before).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tally_groups_requests_by_minute_route_method_and_status() {
        let tally = ApiTally::default();
        let at = DateTime::parse_from_rfc3339("2026-11-22T10:15:30Z")
            .map(|d| d.with_timezone(&Utc))
            .unwrap_or_else(|_| Utc::now());
        tally.record_at(at, "/api/projects", "GET", 200, 10.0);
        tally.record_at(
            at + TimeDelta::seconds(20),
            "/api/projects",
            "GET",
            200,
            30.0,
        );
        tally.record_at(
            at + TimeDelta::seconds(40),
            "/api/projects",
            "GET",
            200,
            5.0,
        );
        tally.record_at(at, "/api/projects", "GET", 500, 7.0);
        let mut buckets = tally.drain();
        buckets.sort_by_key(|b| (b.bucket_start, b.status_code));
        assert_eq!(buckets.len(), 3, "{buckets:?}");
        assert_eq!(buckets[0].request_count, 2);
        assert!((buckets[0].total_latency_ms - 40.0).abs() < 1e-9);
        assert!((buckets[0].max_latency_ms - 30.0).abs() < 1e-9);
        assert_eq!(
            buckets[0].bucket_start.to_rfc3339(),
            "2026-11-22T10:15:00+00:00"
        );
        assert_eq!(buckets[1].status_code, 500);
        assert_eq!(
            buckets[2].bucket_start.to_rfc3339(),
            "2026-11-22T10:16:00+00:00"
        );
        assert!(tally.drain().is_empty(), "drain empties the tally");
    }

    #[test]
    fn restored_buckets_merge_with_new_counts() {
        let tally = ApiTally::default();
        tally.record("/api/health", "GET", 200, 4.0);
        let taken = tally.drain();
        tally.record("/api/health", "GET", 200, 6.0);
        tally.restore(taken);
        let buckets = tally.drain();
        // Both requests may straddle a minute boundary; the total is what matters.
        let total: u64 = buckets.iter().map(|b| b.request_count).sum();
        assert_eq!(total, 2);
    }
}
