//! Claiming tasks: `GET /api/runners/tasks/pending` and the tasks it hands out.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The query of `GET /api/runners/tasks/pending`. Both values stay text: the server
/// names a missing or malformed one in its own error.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams))]
#[cfg_attr(feature = "openapi", into_params(parameter_in = Query))]
#[serde(rename_all = "camelCase")]
pub struct PendingTasksQuery {
    /// The claiming runner, as registered.
    #[cfg_attr(
        feature = "openapi",
        param(value_type = String, required = true, min_length = 1)
    )]
    pub runner_id: Option<String>,
    /// Most tasks to claim: 1 when absent; more than 50 claims 50.
    #[cfg_attr(
        feature = "openapi",
        param(value_type = Option<u32>, minimum = 1, maximum = 4294967295u32)
    )]
    pub limit: Option<String>,
}

impl PendingTasksQuery {
    #[must_use]
    pub fn new(runner_id: &str, limit: u32) -> Self {
        Self {
            runner_id: Some(runner_id.to_owned()),
            limit: Some(limit.to_string()),
        }
    }
}

/// How a file changed in the merge request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = RunnerChangeType))]
#[serde(rename_all = "lowercase")]
pub enum ChangeType {
    New,
    Modified,
    Deleted,
    Renamed,
}

/// A file the runner is asked to review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AssignedFile {
    pub file_id: Uuid,
    pub file_path: String,
    /// The path before a rename.
    pub old_path: Option<String>,
    pub change_type: ChangeType,
}

/// A review rule, applied to the files its patterns match (by the engine's own code).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RunnerRule {
    pub id: Uuid,
    pub rule_name: String,
    pub instructions: String,
    pub file_type_patterns: Vec<String>,
    pub file_path_patterns: Vec<String>,
    pub priority: i32,
}

/// Credentials for cloning over HTTPS, valid for the task's platform.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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

/// The AI configuration the runner reviews with: the project's (`aiConfigId`), else
/// the stored default, else the server's `PROVIDERA_*` one.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RunnerAiConfig {
    /// The configuration's name (`providerA` for the built-in one).
    pub provider: String,
    pub endpoint: Option<String>,
    pub api_key: Option<String>,
    pub model: String,
    pub max_tokens: Option<u32>,
    pub temperature: Option<f64>,
    pub max_diff_chars: usize,
    /// One HTTP attempt's limit in seconds (a stored configuration's `timeoutSecs`);
    /// null: the runner's own.
    #[serde(default)]
    pub timeout_secs: Option<u64>,
    /// Calls in flight at once (a stored configuration's `maxConcurrency`); null:
    /// the runner's own `RUNNER_FILE_CONCURRENCY`.
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

/// A claimed task: everything the runner needs to clone, review and report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ClaimedTask {
    pub id: Uuid,
    pub review_id: Uuid,
    pub project_id: Uuid,
    pub project_path: String,
    pub mr_iid: i64,
    pub mr_title: String,
    pub mr_description: Option<String>,
    /// Where to fetch the two commits from (HTTPS, or a local path).
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
    /// 1 for the first attempt.
    pub attempt: i32,
    /// The lease: a task silent for this long is given to another runner.
    pub timeout_ms: u64,
    /// What context to read beyond each file's diff (absent from older servers:
    /// the runner's defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<crate::ContextSettings>,
    /// The analyzers to run in the checkout (absent from older servers: the
    /// runner's defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<crate::RunnerTools>,
}
