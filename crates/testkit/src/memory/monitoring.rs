//! Monitoring samples and API buckets, the periodic job ledger, and health check
//! results: rows only these ports read, kept in [`MonitoringTables`].

use super::MemoryStore;
use super::Tables;
use async_trait::async_trait;
use chrono::{DateTime, TimeDelta, Utc};
use reviewd_domain::model::TaskStatus;
use reviewd_domain::model::health::{CheckResult, HealthHistoryFilter};
use reviewd_domain::model::monitoring::{
    AiCallTotal, ApiBucket, DatabaseSample, PruneReport, StateCounts, SystemSample,
};
use reviewd_domain::ports::{
    HealthCheckRepository, JobLedger, JobOutcome, MonitoringRepository, NotificationRepository,
    RepoError,
};
use reviewd_domain::{Page, PageRequest};
use std::collections::BTreeMap;
use uuid::Uuid;

#[derive(Debug, Default)]
pub(crate) struct MonitoringTables {
    system: Vec<SystemSample>,
    database: Vec<DatabaseSample>,
    api: Vec<ApiBucket>,
    health: Vec<CheckResult>,
    jobs: Vec<JobRun>,
}

#[derive(Debug)]
struct JobRun {
    id: Uuid,
    name: String,
    /// `None` while running.
    outcome: Option<JobOutcome>,
    started_at: DateTime<Utc>,
    finished_at: Option<DateTime<Utc>>,
}

/// As `PgJobLedger`: a failed run keeps its job from being tried again within the
/// same period for a minute, so an outage is retried once a minute, not every tick.
const FAILED_COOLDOWN: TimeDelta = TimeDelta::seconds(60);

impl JobRun {
    fn blocks(
        &self,
        due_since: DateTime<Utc>,
        stale_before: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> bool {
        match &self.outcome {
            None => self.started_at >= stale_before,
            Some(JobOutcome::Succeeded(_)) => self.started_at >= due_since,
            Some(JobOutcome::Failed(_)) => {
                self.started_at >= due_since
                    && self.finished_at.is_some_and(|f| f >= now - FAILED_COOLDOWN)
            }
        }
    }
}

/// Rows from `since` on (all of them without it), newest first.
fn history<T: Clone>(
    rows: &[T],
    at: impl Fn(&T) -> DateTime<Utc>,
    since: Option<DateTime<Utc>>,
    page: PageRequest,
) -> Page<T> {
    let mut kept: Vec<T> = rows
        .iter()
        .filter(|r| since.is_none_or(|s| at(r) >= s))
        .cloned()
        .collect();
    kept.sort_by_key(|r| std::cmp::Reverse(at(r)));
    Page::from_all(kept, page)
}

/// Deletes the rows `old` picks and counts them.
fn prune<T>(rows: &mut Vec<T>, old: impl Fn(&T) -> bool) -> u64 {
    let before = rows.len();
    rows.retain(|r| !old(r));
    (before - rows.len()) as u64
}

fn same_bucket(a: &ApiBucket, b: &ApiBucket) -> bool {
    (a.bucket_start, &a.route, &a.method, a.status_code)
        == (b.bucket_start, &b.route, &b.method, b.status_code)
}

fn add_bucket(rows: &mut Vec<ApiBucket>, b: &ApiBucket) {
    match rows.iter_mut().find(|r| same_bucket(r, b)) {
        Some(row) => {
            row.request_count += b.request_count;
            row.total_latency_ms += b.total_latency_ms;
            row.max_latency_ms = row.max_latency_ms.max(b.max_latency_ms);
        }
        None => rows.push(b.clone()),
    }
}

fn counts<K: Ord>(keys: impl Iterator<Item = K>) -> BTreeMap<K, u64> {
    let mut counts = BTreeMap::new();
    for key in keys {
        *counts.entry(key).or_default() += 1;
    }
    counts
}

impl Tables {
    /// Reviews and runners by state; the deliveries are left to the notifications.
    fn review_and_runner_counts(&self, runner_offline_before: DateTime<Utc>) -> StateCounts {
        let reviews = counts(
            self.reviews
                .iter()
                .map(|r| r.detail.item.status.as_str().to_owned()),
        );
        let runners = counts(self.runners.iter().map(|r| {
            let silent = r
                .runner
                .last_heartbeat
                .is_none_or(|b| b < runner_offline_before);
            if silent {
                "offline"
            } else {
                r.runner.status.as_str()
            }
            .to_owned()
        }));
        StateCounts {
            reviews: reviews.into_iter().collect(),
            runners: runners.into_iter().collect(),
            notifications: Vec::new(),
            ai_costs: ai_costs(&self.ai_calls),
            ai_calls: ai_calls(&self.ai_calls),
            oldest_queued_task_at: self
                .tasks
                .iter()
                .filter(|t| t.task.status == TaskStatus::Queued)
                .map(|t| t.task.created_at)
                .min(),
        }
    }
}

#[async_trait]
impl MonitoringRepository for MemoryStore {
    async fn sample_database(&self) -> Result<DatabaseSample, RepoError> {
        // There is no server to measure: one connection, this caller's, answering at
        // once, and no pool.
        Ok(DatabaseSample {
            total_connections: 1,
            active_connections: 1,
            idle_connections: 0,
            max_connections: Some(100),
            database_size_bytes: 8 * 1024 * 1024,
            query_latency_ms: 0.0,
            pool_size: None,
            pool_available: None,
            collected_at: self.now(),
        })
    }

    async fn save_system(&self, sample: &SystemSample) -> Result<(), RepoError> {
        self.tables().monitoring.system.push(sample.clone());
        Ok(())
    }

    async fn save_database(&self, sample: &DatabaseSample) -> Result<(), RepoError> {
        self.tables().monitoring.database.push(sample.clone());
        Ok(())
    }

    async fn system_history(
        &self,
        page: PageRequest,
        since: Option<DateTime<Utc>>,
    ) -> Result<Page<SystemSample>, RepoError> {
        let tables = self.tables();
        Ok(history(
            &tables.monitoring.system,
            |s| s.collected_at,
            since,
            page,
        ))
    }

    async fn database_history(
        &self,
        page: PageRequest,
        since: Option<DateTime<Utc>>,
    ) -> Result<Page<DatabaseSample>, RepoError> {
        let tables = self.tables();
        Ok(history(
            &tables.monitoring.database,
            |s| s.collected_at,
            since,
            page,
        ))
    }

    async fn add_api_buckets(&self, buckets: &[ApiBucket]) -> Result<(), RepoError> {
        let rows = &mut self.tables().monitoring.api;
        for b in buckets {
            add_bucket(rows, b);
        }
        Ok(())
    }

    async fn api_buckets(&self, since: DateTime<Utc>) -> Result<Vec<ApiBucket>, RepoError> {
        let mut summed: Vec<ApiBucket> = Vec::new();
        for b in self
            .tables()
            .monitoring
            .api
            .iter()
            .filter(|b| b.bucket_start >= since)
        {
            add_bucket(
                &mut summed,
                &ApiBucket {
                    bucket_start: since,
                    ..b.clone()
                },
            );
        }
        Ok(summed)
    }

    async fn prune(&self, before: DateTime<Utc>) -> Result<PruneReport, RepoError> {
        let m = &mut self.tables().monitoring;
        Ok(PruneReport {
            system_metrics: prune(&mut m.system, |s| s.collected_at < before),
            database_metrics: prune(&mut m.database, |s| s.collected_at < before),
            api_metrics: prune(&mut m.api, |b| b.bucket_start < before),
            health_checks: prune(&mut m.health, |c| c.checked_at < before),
            job_runs: prune(&mut m.jobs, |r| {
                r.outcome.is_some() && r.started_at < before
            }),
        })
    }

    async fn state_counts(
        &self,
        runner_offline_before: DateTime<Utc>,
    ) -> Result<StateCounts, RepoError> {
        let counts = self
            .tables()
            .review_and_runner_counts(runner_offline_before);
        // The deliveries' counts are the notification port's (PostgreSQL reads the
        // three tables in separate statements too).
        let notifications = NotificationRepository::stats(self, None, None)
            .await?
            .into_iter()
            .map(|c| {
                let n = u64::try_from(c.count).unwrap_or(0);
                (
                    c.channel.as_str().to_owned(),
                    c.status.as_str().to_owned(),
                    n,
                )
            })
            .collect();
        Ok(StateCounts {
            notifications,
            ..counts
        })
    }
}

#[async_trait]
impl JobLedger for MemoryStore {
    async fn begin(
        &self,
        name: &str,
        _instance: &str,
        due_since: DateTime<Utc>,
        stale_after: chrono::Duration,
    ) -> Result<Option<Uuid>, RepoError> {
        let now = self.now();
        // The lock stands for PostgreSQL's advisory lock: check and insert are one step.
        let jobs = &mut self.tables().monitoring.jobs;
        let stale_before = now - stale_after;
        if jobs
            .iter()
            .any(|r| r.name == name && r.blocks(due_since, stale_before, now))
        {
            return Ok(None);
        }
        let id = Uuid::new_v4();
        jobs.push(JobRun {
            id,
            name: name.to_owned(),
            outcome: None,
            started_at: now,
            finished_at: None,
        });
        Ok(Some(id))
    }

    async fn finish(&self, run: Uuid, outcome: &JobOutcome) -> Result<(), RepoError> {
        let now = self.now();
        // An unknown run is no error, as an UPDATE of no row is none.
        if let Some(r) = self
            .tables()
            .monitoring
            .jobs
            .iter_mut()
            .find(|r| r.id == run)
        {
            r.outcome = Some(outcome.clone());
            r.finished_at = Some(now);
        }
        Ok(())
    }
}

#[async_trait]
impl HealthCheckRepository for MemoryStore {
    async fn save(&self, results: &[CheckResult]) -> Result<(), RepoError> {
        self.tables().monitoring.health.extend_from_slice(results);
        Ok(())
    }

    async fn latest(&self) -> Result<Vec<CheckResult>, RepoError> {
        let tables = self.tables();
        let mut latest: BTreeMap<(&str, &str), &CheckResult> = BTreeMap::new();
        for r in &tables.monitoring.health {
            let key = (r.check_type.as_str(), r.check_name.as_str());
            if latest.get(&key).is_none_or(|l| r.checked_at > l.checked_at) {
                latest.insert(key, r);
            }
        }
        Ok(latest.into_values().cloned().collect())
    }

    async fn history(&self, f: &HealthHistoryFilter) -> Result<Vec<CheckResult>, RepoError> {
        let tables = self.tables();
        let mut rows: Vec<CheckResult> = tables
            .monitoring
            .health
            .iter()
            .filter(|r| f.check_type.is_none_or(|t| r.check_type == t))
            .filter(|r| f.status.is_none_or(|s| r.status == s))
            .filter(|r| f.start_date.is_none_or(|d| r.checked_at >= d))
            .filter(|r| f.end_date.is_none_or(|d| r.checked_at <= d))
            .cloned()
            .collect();
        rows.sort_by_key(|r| std::cmp::Reverse(r.checked_at));
        rows.truncate(f.limit.max(1) as usize);
        Ok(rows)
    }
}

/// `(provider, model, USD)` of the priced calls, ordered as PostgreSQL orders them.
fn ai_costs(calls: &[super::tables::AiCallRow]) -> Vec<(String, String, f64)> {
    let mut sums: BTreeMap<(String, String), f64> = BTreeMap::new();
    for c in calls {
        if let Some(cost) = c.call.cost_usd {
            *sums
                .entry((c.call.provider.clone(), c.call.model.clone()))
                .or_default() += cost;
        }
    }
    sums.into_iter()
        .map(|((p, m), cost)| (p, m, cost))
        .collect()
}

/// Every logged call per provider, model and status, ordered as PostgreSQL orders them.
fn ai_calls(calls: &[super::tables::AiCallRow]) -> Vec<AiCallTotal> {
    let mut sums: BTreeMap<(String, String, String), (u64, u64)> = BTreeMap::new();
    for c in calls {
        let key = (
            c.call.provider.clone(),
            c.call.model.clone(),
            c.call.status.as_str().to_owned(),
        );
        let entry = sums.entry(key).or_default();
        entry.0 += 1;
        entry.1 += u64::try_from(c.call.total_tokens).unwrap_or(0);
    }
    sums.into_iter()
        .map(|((provider, model, status), (calls, tokens))| AiCallTotal {
            provider,
            model,
            status,
            calls,
            tokens,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fakes::FakeClock;
    use reviewd_domain::ports::Clock;
    use std::sync::Arc;
    use std::time::Duration;

    /// What the contract cannot show without waiting a minute (PostgreSQL's own test
    /// backdates the row instead).
    #[tokio::test]
    async fn a_failed_run_is_tried_again_after_the_cool_down() {
        let clock = Arc::new(FakeClock::default());
        let store = MemoryStore::new(clock.clone());
        let due_since = clock.now() - TimeDelta::hours(1);
        let stale = TimeDelta::minutes(5);
        let run = store
            .begin("backup", "a", due_since, stale)
            .await
            .unwrap()
            .unwrap();
        store
            .finish(run, &JobOutcome::Failed("disk full".into()))
            .await
            .unwrap();
        clock.advance(Duration::from_secs(59));
        assert_eq!(
            store.begin("backup", "b", due_since, stale).await.unwrap(),
            None
        );
        clock.advance(Duration::from_secs(2));
        assert!(
            store
                .begin("backup", "b", due_since, stale)
                .await
                .unwrap()
                .is_some()
        );
    }
}
