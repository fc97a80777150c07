//! Projects synced from the platforms, their review settings, and the global
//! settings they inherit.

use super::PlatformType;
use super::grade::Rating;
use super::ids::ProjectId;
use super::ids::ReviewId;
use super::review::ReviewStatus;
use super::task::{TaskStatus, TriggeredBy};
use chrono::{DateTime, Utc};
use std::str::FromStr;
use uuid::Uuid;

/// The state of a project's webhook on its platform; no value means not configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebhookStatus {
    Active,
    Inactive,
    Error,
    Unknown,
}

impl WebhookStatus {
    pub const ALL: [WebhookStatus; 4] = [
        WebhookStatus::Active,
        WebhookStatus::Inactive,
        WebhookStatus::Error,
        WebhookStatus::Unknown,
    ];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            WebhookStatus::Active => "active",
            WebhookStatus::Inactive => "inactive",
            WebhookStatus::Error => "error",
            WebhookStatus::Unknown => "unknown",
        }
    }
}

impl FromStr for WebhookStatus {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "active" => Ok(WebhookStatus::Active),
            "inactive" => Ok(WebhookStatus::Inactive),
            "error" => Ok(WebhookStatus::Error),
            "unknown" => Ok(WebhookStatus::Unknown),
            other => Err(format!("unknown webhook status `{other}`")),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Project {
    pub id: ProjectId,
    pub platform_config_id: Uuid,
    pub platform_type: PlatformType,
    pub platform_project_id: String,
    pub name: String,
    pub full_path: String,
    pub web_url: String,
    pub default_branch: Option<String>,
    pub visibility: Option<String>,
    pub enabled: bool,
    pub auto_review: Option<bool>,
    pub file_ignore_patterns: Option<Vec<String>>,
    pub ai_config_id: Option<Uuid>,
    pub send_to_platform: Option<bool>,
    pub default_reviewer_ids: Vec<String>,
    pub auto_assign_author: bool,
    pub template_id: Option<Uuid>,
    /// USD the project's AI calls may cost per calendar month (UTC) before webhooks
    /// stop queueing automatic reviews; `None` for no limit.
    pub monthly_budget_usd: Option<f64>,
    /// Whether a comment rejected [`crate::review::feedback::REJECTIONS_TO_SUPPRESS`]
    /// times on this project is left out of its later reviews (on by default).
    pub suppress_rejected: bool,
    /// Whether someone without developer access who speaks to reviewd gets one
    /// polite refusal per merge request (on by default) or silence.
    pub refuse_outsiders: bool,
    /// Whether reviewd posts its merge gate (a `reviewd` commit status or check
    /// run) on the MR's commits (on by default).
    pub gate_enabled: bool,
    /// A round graded below this fails the gate; `None`: the grade alone never does.
    pub gate_min_rating: Option<Rating>,
    /// Tokens of context per prompt besides the diff; `None` inherits the server's
    /// `REVIEW_CONTEXT_TOKENS` (a repository's `.reviewd.yml` wins over both).
    pub context_budget_tokens: Option<u32>,
    pub webhook_id: Option<String>,
    pub webhook_url: Option<String>,
    pub webhook_status: Option<WebhookStatus>,
    pub webhook_checked_at: Option<DateTime<Utc>>,
    pub last_synced_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Project {
    /// How platform calls address this project.
    #[must_use]
    pub fn platform_ref(&self) -> ProjectRef {
        ProjectRef {
            id: self.platform_project_id.clone(),
            full_path: self.full_path.clone(),
        }
    }
}

/// The settings a user may change (`PATCH /api/projects/:id`). `None` keeps a value;
/// for nullable settings `Some(None)` returns to the inherited global value.
#[derive(Debug, Clone, Default)]
pub struct ProjectSettingsChanges {
    pub enabled: Option<bool>,
    pub auto_review: Option<Option<bool>>,
    pub file_ignore_patterns: Option<Option<Vec<String>>>,
    pub ai_config_id: Option<Option<Uuid>>,
    pub default_reviewer_ids: Option<Vec<String>>,
    pub auto_assign_author: Option<bool>,
    /// `Some(None)` removes the budget.
    pub monthly_budget_usd: Option<Option<f64>>,
    pub suppress_rejected: Option<bool>,
    pub refuse_outsiders: Option<bool>,
    pub gate_enabled: Option<bool>,
    /// `Some(None)` removes the grade bar.
    pub gate_min_rating: Option<Option<Rating>>,
    /// `Some(None)` returns to the server's budget.
    pub context_budget_tokens: Option<Option<u32>>,
}

/// What is stored about a project's webhook.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebhookState {
    pub webhook_id: Option<String>,
    pub webhook_url: Option<String>,
    pub status: Option<WebhookStatus>,
}

/// The webhook filter of the paginated list: a status, or "none configured".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebhookStatusFilter {
    Is(WebhookStatus),
    NotConfigured,
}

#[derive(Debug, Clone, Default)]
pub struct ProjectFilter {
    /// Case-insensitive substring of the name or the full path.
    pub search: Option<String>,
    pub platform_type: Option<PlatformType>,
    pub platform_config_id: Option<Uuid>,
    pub enabled: Option<bool>,
    pub webhook_status: Option<WebhookStatusFilter>,
}

/// Settings every project inherits unless it overrides them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobalSettings {
    pub auto_review: bool,
    pub send_to_platform: bool,
    pub file_ignore_patterns: Vec<String>,
    pub review_commands: Vec<String>,
}

/// Aggregates over all projects.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProjectStats {
    pub total: u64,
    pub enabled: u64,
    pub disabled: u64,
    pub gitlab: u64,
    pub github: u64,
    pub webhook_active: u64,
    pub webhook_inactive: u64,
    pub webhook_error: u64,
    pub webhook_unknown: u64,
    pub webhook_not_configured: u64,
    pub auto_review_overrides: u64,
    pub reviews_total: u64,
    pub reviews_pending: u64,
    pub reviews_completed: u64,
    pub reviews_failed: u64,
    /// USD spent on AI calls, ever and in the current calendar month (UTC).
    pub cost_usd_total: f64,
    pub cost_usd_this_month: f64,
    /// Each project's spending this month, costliest first (projects that spent
    /// nothing are left out).
    pub cost_by_project: Vec<ProjectCost>,
}

/// One project's AI spending over a period.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectCost {
    pub project_id: ProjectId,
    pub project_name: String,
    pub cost_usd: f64,
}

/// A review as listed in a project's workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewSummary {
    pub id: ReviewId,
    pub mr_iid: i64,
    pub mr_title: String,
    pub mr_url: String,
    pub status: ReviewStatus,
    pub overall_rating: Option<Rating>,
    pub comment_count: i32,
    pub triggered_by: TriggeredBy,
    pub created_at: DateTime<Utc>,
    pub completed_at: Option<DateTime<Utc>>,
}

/// One review task of a project's pipeline history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineEntry {
    pub id: Uuid,
    pub review_id: Option<ReviewId>,
    pub mr_iid: i64,
    pub head_sha: Option<String>,
    pub status: TaskStatus,
    pub triggered_by: TriggeredBy,
    pub attempts: i32,
    pub runner_id: Option<String>,
    pub error_message: Option<String>,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub completed_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, Default)]
pub struct PipelineFilter {
    /// Only this project's tasks (every project's when `None`).
    pub project_id: Option<ProjectId>,
    /// Only tasks this runner held last.
    pub runner_id: Option<String>,
    pub status: Option<String>,
    pub triggered_by: Option<String>,
    pub mr_iid: Option<i64>,
}

/// Which project an operation addresses: hostA calls use the numeric id, hostB calls
/// the `owner/name` path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectRef {
    pub id: String,
    pub full_path: String,
}
