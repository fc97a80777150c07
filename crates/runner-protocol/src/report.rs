//! Reporting on a claimed task: its phase, its log and its result.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Most lines one `POST /api/runners/tasks/{task_id}/logs` may carry (a result's
/// `logs` have no such limit).
pub const MAX_LOG_LINES: usize = 200;

/// Where a runner is in a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum RunnerPhase {
    Preparing,
    Cloning,
    Reviewing,
    Submitting,
}

impl RunnerPhase {
    pub const ALL: [Self; 4] = [
        Self::Preparing,
        Self::Cloning,
        Self::Reviewing,
        Self::Submitting,
    ];

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
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

/// The body of `POST /api/runners/tasks/{task_id}/status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PhaseUpdate {
    /// `preparing`, `cloning`, `reviewing` or `submitting`; anything else is refused
    /// (`VALIDATION_FAILED`).
    #[cfg_attr(feature = "openapi", schema(value_type = RunnerPhase))]
    pub status: String,
}

impl PhaseUpdate {
    #[must_use]
    pub fn new(phase: RunnerPhase) -> Self {
        Self {
            status: phase.as_str().to_owned(),
        }
    }

    /// The phase, `None` when it is not one.
    #[must_use]
    pub fn phase(&self) -> Option<RunnerPhase> {
        RunnerPhase::parse(&self.status)
    }
}

/// The answer to a phase report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PhaseAck {
    pub acknowledged: bool,
    pub status: RunnerPhase,
}

/// The body of `POST /api/runners/tasks/{task_id}/logs`: lines appended in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LogBatch {
    /// 1 to 200 lines.
    #[cfg_attr(feature = "openapi", schema(min_items = 1, max_items = 200))]
    pub logs: Vec<String>,
}

/// The answer to a log batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct LogsAck {
    pub acknowledged: bool,
    /// Lines this call appended.
    pub appended: usize,
    /// Lines the task's log holds now.
    pub total: u64,
}

/// How a task, or one of its files, ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum RunnerOutcome {
    Success,
    Failed,
}

/// How serious a comment is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = RunnerSeverity))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

/// A merge request's grade, from its comments' severities.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = RunnerRating))]
pub enum Rating {
    A,
    B,
    C,
    D,
    F,
}

impl Rating {
    pub const ALL: [Self; 5] = [Self::A, Self::B, Self::C, Self::D, Self::F];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::A => "A",
            Self::B => "B",
            Self::C => "C",
            Self::D => "D",
            Self::F => "F",
        }
    }

    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

/// A comment on a line of the file's new version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunnerComment {
    /// A comment on a line that is not part of the diff is not posted inline.
    pub line: i64,
    pub severity: Severity,
    pub message: String,
    /// Replacement code the model proposed; the server checks it and posts it as the
    /// platform's suggestion only where it fits the diff (else the comment goes
    /// without it). Left out when there is none, so a runner talks to a server
    /// older than the field as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<RunnerSuggestion>,
}

/// Replacement code for new-side lines `startLine..=endLine` (the comment's line
/// among them, at most 50 lines).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunnerSuggestion {
    pub start_line: i64,
    pub end_line: i64,
    /// What those lines should read (empty deletes them).
    pub code: String,
}

/// One file's review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunnerFileResult {
    pub file_path: String,
    pub status: RunnerOutcome,
    pub comments: Vec<RunnerComment>,
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default)]
    pub error: Option<String>,
    /// What the file's review was given besides its diff (left out by older
    /// runners).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<crate::ContextReport>,
}

/// How long each step took.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunnerMetrics {
    pub duration_ms: u64,
    pub container_prepare_ms: u64,
    pub clone_ms: u64,
    pub review_ms: u64,
    pub submit_ms: u64,
    #[serde(default)]
    pub tokens_used: Option<u64>,
    /// Of `tokensUsed`, those sent (prompt) and those answered (completion): the
    /// server prices them with the task's AI configuration. Without both, the cost of
    /// the runner's calls is unknown.
    #[serde(default)]
    pub prompt_tokens: Option<u64>,
    #[serde(default)]
    pub completion_tokens: Option<u64>,
    /// Of `promptTokens`, those the provider served from its prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u64>,
}

/// The body of `POST /api/runners/tasks/{task_id}/result`: accepted once per task,
/// from the runner holding it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunnerResult {
    /// The runner holding the task; another one's result is refused (409).
    pub runner_id: String,
    /// `failed` gives the task another attempt while it has some.
    pub status: RunnerOutcome,
    pub files: Vec<RunnerFileResult>,
    /// Must equal the number of comments in `files`.
    pub total_comments: u64,
    /// `A`, `B`, `C`, `D` or `F`; anything else is refused (`VALIDATION_FAILED`).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Rating>))]
    pub rating: Option<String>,
    pub metrics: RunnerMetrics,
    #[serde(default)]
    pub error: Option<String>,
    /// Log lines not sent yet, appended to the task's log.
    #[serde(default)]
    pub logs: Option<Vec<String>>,
    /// The summary note's text, written by the runner's model for the MR (left
    /// out by older runners: the files' summaries stand in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<crate::MrSummary>,
    /// What gathering the round's context cost and found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<crate::ContextStats>,
}

/// A queue task's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = RunnerTaskStatus))]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Queued,
    Processing,
    Completed,
    Failed,
    Superseded,
    Cancelled,
}

/// The answer to a result: where the task stands now (`completed`, `failed`, or
/// `queued` again for another attempt).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ResultAck {
    pub acknowledged: bool,
    pub review_id: Option<Uuid>,
    pub task_status: TaskStatus,
}
