//! Registration, heartbeats and the runner's record.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The headers `POST /api/runners/register` reads: registration has no body. Values
/// are trimmed; an empty one counts as absent.
pub mod headers {
    /// The runner's id, unique on the server: 1 to 200 bytes (required).
    pub const RUNNER_ID: &str = "x-runner-id";
    /// A display name; the id when absent.
    pub const RUNNER_NAME: &str = "x-runner-name";
    /// The agent's version; `unknown` when absent.
    pub const RUNNER_VERSION: &str = "x-runner-version";
    /// How many tasks the runner runs at once, 1 to 1000; 5 when absent.
    pub const RUNNER_MAX_CONCURRENCY: &str = "x-runner-max-concurrency";
    /// Comma-separated tags; a task requiring tags goes only to a runner that has them.
    pub const RUNNER_TAGS: &str = "x-runner-tags";
}

/// Longest runner id (`x-runner-id`), in bytes.
pub const MAX_RUNNER_ID_LEN: usize = 200;
/// Fewest tasks a runner may say it runs at once (`x-runner-max-concurrency`).
pub const MIN_CONCURRENCY: i32 = 1;
/// Most tasks a runner may say it runs at once.
pub const MAX_CONCURRENCY: i32 = 1000;
/// `x-runner-max-concurrency` when absent.
pub const DEFAULT_CONCURRENCY: i32 = 5;
/// Most running jobs a heartbeat may report.
pub const MAX_CURRENT_JOBS: i32 = 100_000;

/// Whether a runner takes work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum RunnerStatus {
    Online,
    Busy,
    Offline,
}

impl RunnerStatus {
    pub const ALL: [Self; 3] = [Self::Online, Self::Busy, Self::Offline];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Online => "online",
            Self::Busy => "busy",
            Self::Offline => "offline",
        }
    }

    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

/// A registered runner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Runner {
    pub id: String,
    pub name: String,
    pub version: String,
    pub status: RunnerStatus,
    /// Tasks running now, as the last heartbeat said.
    pub current_jobs: i32,
    pub max_concurrent_jobs: i32,
    pub total_jobs_completed: i64,
    pub total_jobs_failed: i64,
    pub tags: Vec<String>,
    pub last_heartbeat: Option<DateTime<Utc>>,
    pub registered_at: DateTime<Utc>,
}

/// The body of `POST /api/runners/{runner_id}/heartbeat`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Heartbeat {
    /// `online`, `busy` or `offline`; anything else is refused (`VALIDATION_FAILED`).
    #[cfg_attr(feature = "openapi", schema(value_type = RunnerStatus))]
    pub status: String,
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 100000))]
    pub current_jobs: i32,
}

impl Heartbeat {
    #[must_use]
    pub fn new(status: RunnerStatus, current_jobs: i32) -> Self {
        Self {
            status: status.as_str().to_owned(),
            current_jobs,
        }
    }

    /// The status, `None` when it is not one.
    #[must_use]
    pub fn status(&self) -> Option<RunnerStatus> {
        RunnerStatus::parse(&self.status)
    }
}

/// The answer to a heartbeat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct HeartbeatAck {
    pub acknowledged: bool,
    pub runner: Runner,
}

/// The answer to `DELETE /api/runners/{runner_id}`: the runner, now offline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RunnerDeregistered {
    pub runner: Runner,
    /// Always `offline`.
    pub status: RunnerStatus,
}
