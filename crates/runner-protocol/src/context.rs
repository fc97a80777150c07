//! The context a runner reads beyond each file's diff (sent with a claimed
//! task), what each file's review was given and what gathering cost (sent back
//! with the result), and the summary note the runner's model wrote for the MR.

use serde::{Deserialize, Serialize};

/// Whether the runner reads beyond the diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ContextMode {
    #[default]
    Full,
    None,
}

/// What context the runner reads, and within what limits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = RunnerContextSettings))]
#[serde(rename_all = "camelCase")]
pub struct ContextSettings {
    pub mode: ContextMode,
    /// Tokens of context per prompt besides the diff.
    pub budget_tokens: u32,
    /// Reads from the clone per MR (the runner reads locally: a bound, not a bill).
    pub max_calls: u32,
    pub max_bytes: u64,
    pub max_file_bytes: u64,
    pub index_repository: bool,
    pub max_index_files: u64,
    /// Globs of files sent with every file's review.
    pub always: Vec<String>,
    /// Globs of files never read for context.
    pub never: Vec<String>,
    /// The round's ignore globs: never read either.
    pub ignore: Vec<String>,
    /// `.reviewd.yml`'s `instructions`.
    pub instructions: Option<String>,
    /// Read `AGENTS.md`, `CONTRIBUTING.md` and the like at head.
    pub guidance_files: bool,
}

/// What a piece of context is to the change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub enum PieceKind {
    Enclosing,
    Window,
    Definition,
    Caller,
    Pinned,
    Guidance,
    Overview,
}

/// One piece of context a file's review was given (its text stays on the runner).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContextPiece {
    pub kind: PieceKind,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
    pub tokens: u32,
    pub reason: String,
}

/// What a file's review was given besides its diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = RunnerContextReport))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContextReport {
    pub tokens: u32,
    pub budget: u32,
    pub pieces: Vec<ContextPiece>,
    pub dropped: u32,
    pub masked: u32,
    /// The analyzers' findings on the file's changed lines (left out by older
    /// runners).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<crate::RunnerToolEvidence>,
}

/// What gathering a round's context cost and found on the runner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = RunnerContextStats))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContextStats {
    pub mode: String,
    pub source: String,
    pub calls: u32,
    pub bytes: u64,
    pub cache_hits: u32,
    pub limited: bool,
    #[serde(default)]
    pub errors: Vec<String>,
    pub indexed_files: u64,
    pub indexed_lines: u64,
    #[serde(default)]
    pub guidance: Vec<String>,
    pub shared_tokens: u32,
    pub elapsed_ms: u64,
}

/// The summary note's text, written by the runner's model for the MR.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MrSummary {
    /// What the MR does.
    pub summary: String,
    pub files: Vec<FileChange>,
    /// What a reviewer should look at.
    pub risks: Vec<String>,
}

/// What changed in one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FileChange {
    pub path: String,
    pub change: String,
}
