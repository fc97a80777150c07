//! Runners: the registry of runners and their heartbeats (`registry`), their hold
//! on review tasks (`claims`), and the log lines they stream (`logs`). The port's
//! methods are here, each handing over to the submodule that does its job.

mod claim_ready;
mod claims;
mod logs;
mod prepared;
mod registry;

use crate::PgPool;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use reviewd_domain::model::ReviewTask;
use reviewd_domain::model::runner::{
    Runner, RunnerAssignment, RunnerOutcome, RunnerPhase, RunnerRegistration, RunnerStatus,
};
use reviewd_domain::ports::{
    ClaimBatch, HeldTask, Orphaned, PreparationBudget, RepoError, RunnerRepository, SweepReport,
    TaskReservation,
};
use uuid::Uuid;

pub struct PgRunnerRepository {
    pool: PgPool,
}

impl PgRunnerRepository {
    #[must_use]
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

#[async_trait]
impl RunnerRepository for PgRunnerRepository {
    async fn upsert(&self, r: &RunnerRegistration) -> Result<Runner, RepoError> {
        registry::upsert(&self.pool, r).await
    }

    async fn heartbeat(
        &self,
        id: &str,
        status: RunnerStatus,
        current_jobs: i32,
    ) -> Result<Runner, RepoError> {
        registry::heartbeat(&self.pool, id, status, current_jobs).await
    }

    async fn get(&self, id: &str) -> Result<Runner, RepoError> {
        registry::get(&self.pool, id).await
    }

    async fn key_of(&self, id: &str) -> Result<Option<Uuid>, RepoError> {
        registry::key_of(&self.pool, id).await
    }

    async fn list(&self) -> Result<Vec<Runner>, RepoError> {
        registry::list(&self.pool).await
    }

    async fn deregister(&self, id: &str) -> Result<SweepReport, RepoError> {
        registry::deregister(&self.pool, id).await
    }

    async fn claim(
        &self,
        runner_id: &str,
        limit: u32,
        lease: std::time::Duration,
        retry_delay: std::time::Duration,
    ) -> Result<Vec<ReviewTask>, RepoError> {
        claims::claim(&self.pool, runner_id, limit, lease, retry_delay).await
    }

    async fn save_assignment(
        &self,
        task_id: Uuid,
        assignment: &RunnerAssignment,
    ) -> Result<(), RepoError> {
        claims::save_assignment(&self.pool, task_id, assignment).await
    }

    async fn held(&self, task_id: Uuid) -> Result<HeldTask, RepoError> {
        claims::held(&self.pool, task_id).await
    }

    async fn set_phase(
        &self,
        task_id: Uuid,
        runner_id: &str,
        phase: RunnerPhase,
    ) -> Result<(), RepoError> {
        claims::set_phase(&self.pool, task_id, runner_id, phase).await
    }

    async fn append_logs(&self, task_id: Uuid, lines: &[String]) -> Result<u64, RepoError> {
        logs::append_logs(&self.pool, task_id, lines).await
    }

    async fn logs(&self, task_id: Uuid) -> Result<Vec<(i32, String, DateTime<Utc>)>, RepoError> {
        logs::logs(&self.pool, task_id).await
    }

    async fn accept_result(
        &self,
        task_id: Uuid,
        runner_id: &str,
        result: &serde_json::Value,
        metrics: &serde_json::Value,
    ) -> Result<(), RepoError> {
        claims::accept_result(&self.pool, task_id, runner_id, result, metrics).await
    }

    async fn count_finished(
        &self,
        runner_id: &str,
        outcome: RunnerOutcome,
    ) -> Result<(), RepoError> {
        registry::count_finished(&self.pool, runner_id, outcome).await
    }

    async fn release(&self, task_id: Uuid, runner_id: &str, error: &str) -> Result<(), RepoError> {
        claims::release(&self.pool, task_id, runner_id, error).await
    }

    async fn sweep_silent(&self, silent_before: DateTime<Utc>) -> Result<SweepReport, RepoError> {
        registry::sweep_silent(&self.pool, silent_before).await
    }

    async fn runner_can_take(
        &self,
        task_id: Uuid,
        queued_after: DateTime<Utc>,
        heard_after: DateTime<Utc>,
    ) -> Result<bool, RepoError> {
        claims::runner_can_take(&self.pool, task_id, queued_after, heard_after).await
    }

    async fn claim_ready(
        &self,
        runner_id: &str,
        caller_key: Uuid,
        limit: u32,
        lease: std::time::Duration,
        retry_delay: std::time::Duration,
        fresh_after: Option<DateTime<Utc>>,
    ) -> Result<ClaimBatch, RepoError> {
        claim_ready::claim_ready(
            &self.pool,
            runner_id,
            caller_key,
            limit,
            lease,
            retry_delay,
            fresh_after,
        )
        .await
    }

    async fn reserve_to_prepare(
        &self,
        retry_delay: std::time::Duration,
        fresh_after: DateTime<Utc>,
        heard_after: DateTime<Utc>,
    ) -> Result<Option<Box<dyn TaskReservation>>, RepoError> {
        prepared::reserve_to_prepare(&self.pool, retry_delay, fresh_after, heard_after).await
    }

    async fn reserve_orphaned_preparation(&self) -> Result<Option<Orphaned>, RepoError> {
        prepared::reserve_orphaned(&self.pool).await
    }

    async fn preparation_budget(
        &self,
        heard_after: DateTime<Utc>,
        fresh_after: DateTime<Utc>,
    ) -> Result<PreparationBudget, RepoError> {
        prepared::budget(&self.pool, heard_after, fresh_after).await
    }
}
