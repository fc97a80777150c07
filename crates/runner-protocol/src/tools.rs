//! The analyzers a runner runs for a task (`.reviewd.yml`'s `tools:` at the head),
//! and what became of their findings.

use serde::{Deserialize, Serialize};

/// Which tools, with what limits, and which findings are posted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RunnerTools {
    /// Tools by name (`ruff`, `shellcheck`, `semgrep`, `clippy`, `eslint`); null:
    /// the runner's default set.
    #[serde(default)]
    pub run: Option<Vec<String>>,
    /// `confirmed` (the model confirmed it) or `all`.
    pub post: String,
    pub timeout_secs: u32,
    pub memory_mb: u32,
    /// Semgrep's rule files in the repository; null: `.semgrep.yml` and the like.
    #[serde(default)]
    pub semgrep_rules: Option<Vec<String>>,
    #[serde(default)]
    pub commands: Vec<RunnerToolCommand>,
}

/// A repository's own tool: a program run in the checkout, read from the SARIF
/// file it writes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RunnerToolCommand {
    pub name: String,
    pub run: Vec<String>,
    pub sarif: String,
}

/// One finding on a changed line of the file, and what became of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunnerToolEvidence {
    pub tool: String,
    pub rule: String,
    pub line: u32,
    /// `info`, `warning` or `error` (text, as the server checks it).
    pub severity: String,
    pub message: String,
    /// `posted`, `merged` (into the model's comment), `dismissed` or `unconfirmed`.
    pub outcome: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}
