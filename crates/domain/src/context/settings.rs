//! How much context a review gathers, and from where: the server's defaults, a
//! project's budget, a repository's `.reviewd.yml` (`context`, `instructions`).

use serde::{Deserialize, Serialize};

/// Whether a review reads beyond its diff (`reviewd eval --context none` shows
/// what the context buys).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContextMode {
    /// Enclosing symbols, definitions, callers, the MR overview and guidance.
    #[default]
    Full,
    /// The diff alone, as reviews were before the context existed.
    None,
}

/// The limits of one review's context (kept with a runner's assignment).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ContextSettings {
    pub mode: ContextMode,
    /// Tokens of context per prompt besides the diff (about 4 characters each),
    /// the shared part (guidance, overview) included.
    pub budget_tokens: u32,
    /// Calls to the code source per MR (the platform's rate limit is per token:
    /// GitHub allows 5,000 an hour).
    pub max_calls: u32,
    /// Bytes read from the code source per MR.
    pub max_bytes: u64,
    /// A larger file is not read for context (generated code, data).
    pub max_file_bytes: u64,
    /// Build a symbol index of the whole repository at head (one archive).
    pub index_repository: bool,
    /// Files indexed at most.
    pub max_index_files: usize,
    /// Globs of files always sent with every file's review (`context.always`).
    pub always: Vec<String>,
    /// Globs of files never read for context (`context.never`), besides the
    /// secret files and the ignore globs.
    pub never: Vec<String>,
    /// The project's (or `.reviewd.yml`'s) ignore globs: never sent either.
    pub ignore: Vec<String>,
    /// `.reviewd.yml`'s `instructions`: the team's guidance written in the file.
    pub instructions: Option<String>,
    /// Read the guidance files (`AGENTS.md`, `CONTRIBUTING.md`...) at head.
    pub guidance_files: bool,
}

impl Default for ContextSettings {
    fn default() -> Self {
        Self {
            mode: ContextMode::Full,
            budget_tokens: DEFAULT_BUDGET_TOKENS,
            max_calls: 60,
            max_bytes: 64 * 1024 * 1024,
            max_file_bytes: 512 * 1024,
            index_repository: true,
            max_index_files: 20_000,
            always: Vec::new(),
            never: Vec::new(),
            ignore: Vec::new(),
            instructions: None,
            guidance_files: true,
        }
    }
}

/// The server's default per-prompt budget (`REVIEW_CONTEXT_TOKENS`).
pub const DEFAULT_BUDGET_TOKENS: u32 = 6_000;
/// The range a project or `.reviewd.yml` may set.
pub const BUDGET_RANGE: std::ops::RangeInclusive<u32> = 0..=100_000;

/// Tokens a text costs, estimated at 4 characters a token (no tokenizer is
/// assumed: providers differ, and the budget is a bound, not a bill).
#[must_use]
pub fn tokens(text: &str) -> u32 {
    u32::try_from(text.chars().count().div_ceil(4)).unwrap_or(u32::MAX)
}
