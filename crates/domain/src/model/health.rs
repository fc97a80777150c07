//! Results of health checks.

use chrono::{DateTime, Utc};

/// Ordered from best to worst, so the overall state is the maximum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HealthStatus {
    Healthy,
    Degraded,
    Unhealthy,
}

impl HealthStatus {
    pub const ALL: [HealthStatus; 3] = [
        HealthStatus::Healthy,
        HealthStatus::Degraded,
        HealthStatus::Unhealthy,
    ];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            HealthStatus::Healthy => "healthy",
            HealthStatus::Degraded => "degraded",
            HealthStatus::Unhealthy => "unhealthy",
        }
    }

    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "healthy" => Some(HealthStatus::Healthy),
            "degraded" => Some(HealthStatus::Degraded),
            "unhealthy" => Some(HealthStatus::Unhealthy),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CheckType {
    Database,
    Gitlab,
    AiProvider,
    DiskSpace,
}

impl CheckType {
    pub const ALL: [CheckType; 4] = [
        CheckType::Database,
        CheckType::Gitlab,
        CheckType::AiProvider,
        CheckType::DiskSpace,
    ];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            CheckType::Database => "database",
            CheckType::Gitlab => "hostA",
            CheckType::AiProvider => "ai_provider",
            CheckType::DiskSpace => "disk_space",
        }
    }

    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "database" => Some(CheckType::Database),
            "hostA" => Some(CheckType::Gitlab),
            "ai_provider" => Some(CheckType::AiProvider),
            "disk_space" => Some(CheckType::DiskSpace),
            _ => None,
        }
    }
}

/// One check's outcome, as the API shows it and the store keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckResult {
    pub check_type: CheckType,
    pub check_name: String,
    pub status: HealthStatus,
    pub details: serde_json::Value,
    /// Milliseconds the check took.
    pub response_time: u64,
    pub checked_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Default)]
pub struct HealthHistoryFilter {
    pub check_type: Option<CheckType>,
    pub status: Option<HealthStatus>,
    pub start_date: Option<DateTime<Utc>>,
    pub end_date: Option<DateTime<Utc>>,
    pub limit: u32,
}
