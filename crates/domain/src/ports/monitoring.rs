use super::RepoError;
use crate::model::monitoring::{ApiBucket, DatabaseSample, PruneReport, StateCounts, SystemSample};
use crate::pagination::{Page, PageRequest};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// Reads the host's CPU, memory, load and uptime.
#[async_trait]
pub trait SystemSampler: Send + Sync {
    async fn sample(&self) -> SystemSample;
}

/// Stored samples, API buckets and the counts the metrics exposition reports.
#[async_trait]
pub trait MonitoringRepository: Send + Sync {
    /// Measures the database now (connections, size, a round trip).
    ///
    /// # Errors
    /// Store failures.
    async fn sample_database(&self) -> Result<DatabaseSample, RepoError>;

    /// # Errors
    /// Store failures.
    async fn save_system(&self, sample: &SystemSample) -> Result<(), RepoError>;

    /// # Errors
    /// Store failures.
    async fn save_database(&self, sample: &DatabaseSample) -> Result<(), RepoError>;

    /// Samples newest first, optionally from `since` on.
    ///
    /// # Errors
    /// Store failures.
    async fn system_history(
        &self,
        page: PageRequest,
        since: Option<DateTime<Utc>>,
    ) -> Result<Page<SystemSample>, RepoError>;

    /// # Errors
    /// Store failures.
    async fn database_history(
        &self,
        page: PageRequest,
        since: Option<DateTime<Utc>>,
    ) -> Result<Page<DatabaseSample>, RepoError>;

    /// Adds request counts into their minute buckets (replicas add into the same rows).
    ///
    /// # Errors
    /// Store failures.
    async fn add_api_buckets(&self, buckets: &[ApiBucket]) -> Result<(), RepoError>;

    /// Buckets from `since` on, summed over minutes per route, method and status.
    ///
    /// # Errors
    /// Store failures.
    async fn api_buckets(&self, since: DateTime<Utc>) -> Result<Vec<ApiBucket>, RepoError>;

    /// Deletes samples, buckets, health results and job runs older than `before`.
    ///
    /// # Errors
    /// Store failures.
    async fn prune(&self, before: DateTime<Utc>) -> Result<PruneReport, RepoError>;

    /// Reviews, runners and notifications by state; runners silent since
    /// `runner_offline_before` count as `offline`.
    ///
    /// # Errors
    /// Store failures.
    async fn state_counts(
        &self,
        runner_offline_before: DateTime<Utc>,
    ) -> Result<StateCounts, RepoError>;
}

/// How a periodic job's run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobOutcome {
    Succeeded(String),
    Failed(String),
}

/// The record of periodic job runs, which also elects the replica that runs a job:
/// `begin` is serialised by a database lock, so of N replicas asking at once one
/// gets the run.
#[async_trait]
pub trait JobLedger: Send + Sync {
    /// Starts a run of `name` unless one succeeded after starting at or after
    /// `due_since`, or one is still running and younger than `stale_after`; returns
    /// the run's id when this caller got it. A failed run blocks for a short cool-down
    /// (a minute in the adapters), not until the next period: the job is tried again
    /// soon, but not on every tick of every replica.
    ///
    /// # Errors
    /// Store failures.
    async fn begin(
        &self,
        name: &str,
        instance: &str,
        due_since: DateTime<Utc>,
        stale_after: chrono::Duration,
    ) -> Result<Option<Uuid>, RepoError>;

    /// # Errors
    /// Store failures.
    async fn finish(&self, run: Uuid, outcome: &JobOutcome) -> Result<(), RepoError>;
}

/// Who asked for a reset, and with which credential: they stay, so that they can go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResetCaller {
    pub user_id: uuid::Uuid,
    /// The session the call came with, if it was a session.
    pub session_id: Option<uuid::Uuid>,
    /// The API key the call came with, if it was a key.
    pub api_key_id: Option<uuid::Uuid>,
}

/// Deletes everything one store holds for reviewd (`POST /api/system/reset`): every
/// row of every table but the migrations' record and the caller's account and
/// credential, with the default rows the migrations create put back; or every queue key.
#[async_trait]
pub trait DataWipe: Send + Sync {
    /// What is wiped, for the reset's answer (`database`, `queue`).
    fn store(&self) -> &'static str;

    /// Returns how many tables or keys were emptied. Atomic where the store allows:
    /// all or nothing.
    ///
    /// # Errors
    /// Store failures.
    async fn wipe(&self, caller: &ResetCaller) -> Result<u64, RepoError>;
}
