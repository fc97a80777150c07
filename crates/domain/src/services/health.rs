//! Health checks: the database, each enabled hostA instance, each AI configuration
//! and the disk space of the log and backup directories; results are stored, the
//! overall state is the worst of them.
//!
//! Thresholds: the database is `degraded` from 250 ms per round trip and `unhealthy`
//! from 1 s or on error; a disk is `degraded` below 10 % free and `unhealthy` below 5 %;
//! a platform or provider that answers is `healthy`, rate limited `degraded`, a rejected
//! token or no answer `unhealthy`.

use super::ServiceError;
use super::ai_configs::AiConfigService;
use super::platform_access::platform_for;
use crate::model::health::{CheckResult, CheckType, HealthHistoryFilter, HealthStatus};
use crate::model::{AiTarget, PlatformType};
use crate::ports::{
    AiError, DiskUsage, HealthCheckRepository, HealthProbe, PlatformClients,
    PlatformConfigRepository,
};
use chrono::Utc;
use serde_json::json;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long the health check waits for one AI configuration's models list: an
/// endpoint that does not answer (a host that drops packets, a configuration's
/// `timeoutSecs` of an hour) is reported unhealthy after this, not awaited.
pub const AI_PROBE_TIMEOUT: Duration = Duration::from_secs(5);

const DB_DEGRADED: Duration = Duration::from_millis(250);
const DB_UNHEALTHY: Duration = Duration::from_secs(1);
const DISK_DEGRADED_FREE: f64 = 10.0;
const DISK_UNHEALTHY_FREE: f64 = 5.0;

pub struct HealthService {
    database: Arc<dyn HealthProbe>,
    configs: Arc<dyn PlatformConfigRepository>,
    clients: Arc<dyn PlatformClients>,
    ai: Arc<AiConfigService>,
    disk: Arc<dyn DiskUsage>,
    directories: Vec<(String, PathBuf)>,
    store: Arc<dyn HealthCheckRepository>,
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The worst status of the results (`healthy` when there are none).
#[must_use]
pub fn overall(results: &[CheckResult]) -> HealthStatus {
    results
        .iter()
        .map(|r| r.status)
        .max()
        .unwrap_or(HealthStatus::Healthy)
}

impl HealthService {
    /// `directories` are the named paths whose filesystems are watched (`LOG_DIR`, `BACKUP_DIR`).
    pub fn new(
        database: Arc<dyn HealthProbe>,
        configs: Arc<dyn PlatformConfigRepository>,
        clients: Arc<dyn PlatformClients>,
        ai: Arc<AiConfigService>,
        disk: Arc<dyn DiskUsage>,
        directories: Vec<(String, PathBuf)>,
        store: Arc<dyn HealthCheckRepository>,
    ) -> Self {
        Self {
            database,
            configs,
            clients,
            ai,
            disk,
            directories,
            store,
        }
    }

    fn result(
        check_type: CheckType,
        name: &str,
        status: HealthStatus,
        details: serde_json::Value,
        took: Duration,
    ) -> CheckResult {
        CheckResult {
            check_type,
            check_name: name.to_owned(),
            status,
            details,
            response_time: millis(took),
            checked_at: Utc::now(),
        }
    }

    async fn save(&self, results: Vec<CheckResult>) -> Result<Vec<CheckResult>, ServiceError> {
        self.store.save(&results).await?;
        Ok(results)
    }

    /// Runs and stores the database check.
    ///
    /// # Errors
    /// Store failures while saving (a failing database check is a result, not an error).
    pub async fn database(&self) -> Result<Vec<CheckResult>, ServiceError> {
        let started = Instant::now();
        let result = match self.database.ping().await {
            Ok(took) if took >= DB_UNHEALTHY => Self::result(
                CheckType::Database,
                "postgresql",
                HealthStatus::Unhealthy,
                json!({ "message": "very slow round trip" }),
                took,
            ),
            Ok(took) if took >= DB_DEGRADED => Self::result(
                CheckType::Database,
                "postgresql",
                HealthStatus::Degraded,
                json!({ "message": "slow round trip" }),
                took,
            ),
            Ok(took) => Self::result(
                CheckType::Database,
                "postgresql",
                HealthStatus::Healthy,
                json!({ "message": "reachable" }),
                took,
            ),
            Err(e) => Self::result(
                CheckType::Database,
                "postgresql",
                HealthStatus::Unhealthy,
                json!({ "error": e.to_string() }),
                started.elapsed(),
            ),
        };
        self.save(vec![result]).await
    }

    /// Runs and stores a check of each enabled hostA config (reachability and token).
    ///
    /// # Errors
    /// Store failures.
    pub async fn gitlab(&self) -> Result<Vec<CheckResult>, ServiceError> {
        let mut results = Vec::new();
        for config in self.configs.list(Some(PlatformType::Gitlab), true).await? {
            let started = Instant::now();
            let outcome = match platform_for(self.clients.as_ref(), &config) {
                Ok(platform) => platform
                    .token_identity()
                    .await
                    .map(|i| i.username)
                    .map_err(ServiceError::from),
                Err(e) => Err(e),
            };
            let took = started.elapsed();
            let (status, details) = match outcome {
                Ok(user) => (
                    HealthStatus::Healthy,
                    json!({ "baseUrl": config.base_url, "user": user }),
                ),
                Err(
                    e @ ServiceError::Platform(crate::ports::PlatformError::RateLimited { .. }),
                ) => (
                    HealthStatus::Degraded,
                    json!({ "baseUrl": config.base_url, "error": e.to_string() }),
                ),
                Err(e) => (
                    HealthStatus::Unhealthy,
                    json!({ "baseUrl": config.base_url, "error": e.to_string() }),
                ),
            };
            results.push(Self::result(
                CheckType::Gitlab,
                &config.name,
                status,
                details,
                took,
            ));
        }
        self.save(results).await
    }

    /// Runs and stores a check of each AI configuration (the stored ones and, when
    /// set or in use, the built-in one), all at once: one slow endpoint does not
    /// delay the others' results.
    ///
    /// # Errors
    /// Store failures.
    pub async fn ai_providers(&self) -> Result<Vec<CheckResult>, ServiceError> {
        let targets = self.ai.health_targets().await?;
        let results =
            futures_util::future::join_all(targets.iter().map(|t| self.check_ai(t))).await;
        self.save(results).await
    }

    /// The models list of one configuration, with its key: one attempt, cut at
    /// [`AI_PROBE_TIMEOUT`].
    async fn check_ai(&self, target: &AiTarget) -> CheckResult {
        let started = Instant::now();
        let outcome = match self.ai.provider(&target.probe(AI_PROBE_TIMEOUT)) {
            Ok(provider) => provider.check().await,
            Err(e) => Err(e),
        };
        let took = started.elapsed();
        let mut details = json!({
            "aiConfigId": target.config_id(),
            "endpoint": target.endpoint,
            "model": target.model,
            "isDefault": target.is_default,
        });
        let (status, key, text) = match outcome {
            Ok(()) => (
                HealthStatus::Healthy,
                "message",
                "reachable, key accepted".to_owned(),
            ),
            Err(e @ AiError::RateLimited { .. }) => {
                (HealthStatus::Degraded, "error", e.to_string())
            }
            Err(e) => (HealthStatus::Unhealthy, "error", e.to_string()),
        };
        details[key] = text.into();
        Self::result(CheckType::AiProvider, &target.name, status, details, took)
    }

    /// Runs and stores the disk-space checks of the watched directories.
    ///
    /// # Errors
    /// Store failures.
    pub async fn disk_space(&self) -> Result<Vec<CheckResult>, ServiceError> {
        let mut results = Vec::new();
        for (name, path) in &self.directories {
            let started = Instant::now();
            let result = match self.disk.usage(path).await {
                Ok(space) => {
                    #[expect(
                        clippy::cast_precision_loss,
                        reason = "a percentage: 2^52 bytes of precision is plenty"
                    )]
                    let free = if space.total_bytes == 0 {
                        0.0
                    } else {
                        space.available_bytes as f64 * 100.0 / space.total_bytes as f64
                    };
                    let status = if free < DISK_UNHEALTHY_FREE {
                        HealthStatus::Unhealthy
                    } else if free < DISK_DEGRADED_FREE {
                        HealthStatus::Degraded
                    } else {
                        HealthStatus::Healthy
                    };
                    let details = json!({ "path": path.display().to_string(), "totalBytes": space.total_bytes,
                                          "availableBytes": space.available_bytes, "freePercent": (free * 10.0).round() / 10.0 });
                    Self::result(
                        CheckType::DiskSpace,
                        name,
                        status,
                        details,
                        started.elapsed(),
                    )
                }
                Err(error) => Self::result(
                    CheckType::DiskSpace,
                    name,
                    HealthStatus::Unhealthy,
                    json!({ "path": path.display().to_string(), "error": error }),
                    started.elapsed(),
                ),
            };
            results.push(result);
        }
        self.save(results).await
    }

    /// Every check, stored; returns the results (the overall state is [`overall`]).
    ///
    /// # Errors
    /// Store failures.
    pub async fn check_all(&self) -> Result<Vec<CheckResult>, ServiceError> {
        let mut all = self.database().await?;
        all.extend(self.gitlab().await?);
        all.extend(self.ai_providers().await?);
        all.extend(self.disk_space().await?);
        Ok(all)
    }

    /// # Errors
    /// Store failures.
    pub async fn latest(&self) -> Result<Vec<CheckResult>, ServiceError> {
        Ok(self.store.latest().await?)
    }

    /// # Errors
    /// Store failures.
    pub async fn history(
        &self,
        filter: &HealthHistoryFilter,
    ) -> Result<Vec<CheckResult>, ServiceError> {
        Ok(self.store.history(filter).await?)
    }
}
