//! Runners: agents that register, heartbeat, claim review tasks and submit results.

use super::ids::ProjectId;
use super::ids::{ReviewFileId, ReviewId};
use crate::model::diff::ChangeType;
use crate::model::diff::Suggestion;
use crate::model::grade::Severity;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunnerStatus {
    Online,
    Busy,
    Offline,
}

impl RunnerStatus {
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
        match s {
            "online" => Some(Self::Online),
            "busy" => Some(Self::Busy),
            "offline" => Some(Self::Offline),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runner {
    pub id: String,
    pub name: String,
    pub version: String,
    pub status: RunnerStatus,
    pub current_jobs: i32,
    pub max_concurrent_jobs: i32,
    pub total_jobs_completed: i64,
    pub total_jobs_failed: i64,
    pub tags: Vec<String>,
    pub last_heartbeat: Option<DateTime<Utc>>,
    pub registered_at: DateTime<Utc>,
}

/// What `POST /api/runners/register` carries in its headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunnerRegistration {
    pub id: String,
    pub name: String,
    pub version: String,
    pub max_concurrent_jobs: i32,
    pub tags: Vec<String>,
    /// The API key the runner authenticated with.
    pub api_key_id: Option<Uuid>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunnerPhase {
    Preparing,
    Cloning,
    Reviewing,
    Submitting,
}

impl RunnerPhase {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Preparing => "preparing",
            Self::Cloning => "cloning",
            Self::Reviewing => "reviewing",
            Self::Submitting => "submitting",
        }
    }

    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "preparing" => Some(Self::Preparing),
            "cloning" => Some(Self::Cloning),
            "reviewing" => Some(Self::Reviewing),
            "submitting" => Some(Self::Submitting),
            _ => None,
        }
    }
}

/// A file a runner is asked to review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssignedFile {
    pub file_id: ReviewFileId,
    pub file_path: String,
    pub old_path: Option<String>,
    pub change_type: ChangeType,
}

/// The round a claimed task was given, kept on the task until its result arrives
/// (any replica may receive it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunnerAssignment {
    pub review_id: ReviewId,
    pub round_id: Uuid,
    pub round_number: i32,
    pub base_sha: String,
    pub head_sha: String,
    pub files: Vec<AssignedFile>,
    pub applied_rule_ids: Vec<String>,
    /// The model the runner was told to use (absent in assignments saved before
    /// AI configurations: the built-in model).
    #[serde(default)]
    pub ai_model: Option<String>,
    /// `.reviewd.yml`'s `minSeverity` at the head, applied when the result comes
    /// back (absent in older assignments: everything posted).
    #[serde(default)]
    pub min_severity: Option<crate::model::grade::Severity>,
    /// What context the runner reads beyond each file's diff (absent in older
    /// assignments: the defaults).
    #[serde(default)]
    pub context: Option<crate::context::ContextSettings>,
    /// `.reviewd.yml`'s `gate:` at the head, laid over the project's policy when
    /// the result comes back (absent: the project's).
    #[serde(default)]
    pub gate: Option<crate::review::gate::RepoGate>,
    /// `.reviewd.yml`'s `tools:` at the head: what the runner runs (absent: the
    /// defaults).
    #[serde(default)]
    pub tools: Option<crate::review::tools::settings::RepoTools>,
}

/// Outcome of a runner task (and of each file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunnerOutcome {
    Success,
    Failed,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunnerComment {
    pub line: i64,
    pub severity: Severity,
    pub message: String,
    /// Checked and fitted to the diff again by the server, as the model's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<Suggestion>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunnerFileResult {
    pub file_path: String,
    pub status: RunnerOutcome,
    pub comments: Vec<RunnerComment>,
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default)]
    pub error: Option<String>,
    /// What the file's review was given besides its diff.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<crate::context::ContextReport>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunnerMetrics {
    pub duration_ms: u64,
    pub container_prepare_ms: u64,
    pub clone_ms: u64,
    pub review_ms: u64,
    pub submit_ms: u64,
    #[serde(default)]
    pub tokens_used: Option<u64>,
    #[serde(default)]
    pub prompt_tokens: Option<u64>,
    #[serde(default)]
    pub completion_tokens: Option<u64>,
    /// Prompt tokens the provider served from its cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u64>,
}

/// The body of `POST /api/runners/tasks/:id/result`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunnerResult {
    pub runner_id: String,
    pub status: RunnerOutcome,
    pub files: Vec<RunnerFileResult>,
    pub total_comments: u64,
    #[serde(default)]
    pub rating: Option<String>,
    pub metrics: RunnerMetrics,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub logs: Option<Vec<String>>,
    /// The summary note's text, written by the runner's model for the MR
    /// (absent from older runners: the files' summaries stand in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<crate::review::mr_summary::MrSummary>,
    /// What gathering the round's context cost and found on the runner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<crate::context::ContextStats>,
}

/// Credentials for cloning over HTTPS, valid for the task's platform.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CloneCredentials {
    pub username: String,
    pub password: String,
}

/// Never prints the password (tasks are logged with `{:?}`).
impl std::fmt::Debug for CloneCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CloneCredentials")
            .field("username", &self.username)
            .field("password", &"***")
            .finish()
    }
}

/// The AI configuration a runner reviews with.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunnerAiConfig {
    pub provider: String,
    pub endpoint: Option<String>,
    pub api_key: Option<String>,
    pub model: String,
    pub max_tokens: Option<u32>,
    pub temperature: Option<f64>,
    pub max_diff_chars: usize,
    /// One HTTP attempt's limit in seconds (a stored configuration's `timeoutSecs`).
    #[serde(default)]
    pub timeout_secs: Option<u64>,
    /// Calls in flight at once (a stored configuration's `maxConcurrency`).
    #[serde(default)]
    pub max_concurrency: Option<usize>,
}

/// Never prints the API key.
impl std::fmt::Debug for RunnerAiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunnerAiConfig")
            .field("provider", &self.provider)
            .field("endpoint", &self.endpoint)
            .field("api_key", &self.api_key.as_ref().map(|_| "***"))
            .field("model", &self.model)
            .field("max_tokens", &self.max_tokens)
            .field("temperature", &self.temperature)
            .field("max_diff_chars", &self.max_diff_chars)
            .field("timeout_secs", &self.timeout_secs)
            .field("max_concurrency", &self.max_concurrency)
            .finish()
    }
}

/// A rule as a runner applies it: the engine's own, matched by the same code.
pub type RunnerRule = crate::model::rule::ActiveRule;

/// A task as a runner receives it from `GET /api/runners/tasks/pending`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimedTask {
    pub id: Uuid,
    pub review_id: ReviewId,
    pub project_id: ProjectId,
    pub project_path: String,
    pub mr_iid: i64,
    pub mr_title: String,
    pub mr_description: Option<String>,
    pub repository_url: String,
    pub clone_credentials: Option<CloneCredentials>,
    pub source_branch: String,
    pub target_branch: String,
    pub base_sha: String,
    pub commit_sha: String,
    pub files: Vec<AssignedFile>,
    pub system_prompt: String,
    pub rules: Vec<RunnerRule>,
    pub ai: RunnerAiConfig,
    pub attempt: i32,
    pub timeout_ms: u64,
    /// What context to read beyond each file's diff.
    pub context: crate::context::ContextSettings,
    /// `.reviewd.yml`'s `tools:`: what the runner runs in the checkout.
    pub tools: crate::review::tools::settings::RepoTools,
}
