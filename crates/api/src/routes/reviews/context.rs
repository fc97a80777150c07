//! What a review's context was, as the API shows it: each file's pieces (kind,
//! path, symbol, lines, tokens, reason; never their text), what gathering a
//! round's context cost, and the review's tokens.

use super::schemas::piece_kind_schema;
use reviewd_domain::context::{ContextReport, ContextStats};
use reviewd_domain::model::review_views::TokenTotals;
use serde::Serialize;
use utoipa::ToSchema;

/// What a file's review was given besides its diff, for all its prompts.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct FileContextDto {
    /// Tokens of context sent (about 4 characters each), the shared part once.
    #[schema(minimum = 0)]
    tokens: u32,
    /// The per-prompt budget it was cut to.
    #[schema(minimum = 0)]
    budget: u32,
    /// Pieces found but left out for the budget.
    #[schema(minimum = 0)]
    dropped: u32,
    /// Secret-shaped strings masked before sending.
    #[schema(minimum = 0)]
    masked: u32,
    pieces: Vec<ContextPieceDto>,
    /// The analyzers' findings on the file's changed lines (a runner's tools, SARIF
    /// uploaded from CI, the secrets scan) and what became of each.
    tools: Vec<ToolFindingDto>,
}

/// An analyzer's finding on a changed line, and what became of it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ToolFindingDto {
    tool: String,
    rule: String,
    #[schema(minimum = 1)]
    line: u32,
    #[schema(schema_with = super::schemas::severity_schema)]
    severity: &'static str,
    message: String,
    /// `posted`, `merged` (into the model's comment on that line), `dismissed`
    /// (by the model, `reason` says why) or `unconfirmed` (not posted under
    /// `tools.post: confirmed`).
    #[schema(schema_with = tool_outcome_schema)]
    outcome: &'static str,
    /// The model's reason for confirming or dismissing it.
    reason: Option<String>,
}

fn tool_outcome_schema() -> utoipa::openapi::Object {
    crate::field_schemas::string_enum(["posted", "merged", "dismissed", "unconfirmed"])
}

/// One piece of context.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ContextPieceDto {
    /// `enclosing` (the symbol a hunk sits in), `window` (lines around a hunk),
    /// `definition` (of a name the changed lines use), `caller` (a use of what
    /// the change modifies, renames or deletes), `pinned` (`.reviewd.yml`
    /// `context.always`), `guidance` (`AGENTS.md`, `CONTRIBUTING.md`,
    /// `.reviewd.yml` `instructions`), `overview` (the MR's changed files).
    #[schema(schema_with = piece_kind_schema)]
    kind: &'static str,
    /// The file it quotes (empty for the overview).
    path: String,
    symbol: Option<String>,
    /// Lines quoted, 1-based and inclusive; 0 when it quotes a whole text.
    #[schema(minimum = 0)]
    start_line: u32,
    #[schema(minimum = 0)]
    end_line: u32,
    #[schema(minimum = 0)]
    tokens: u32,
    /// Why it was chosen.
    reason: String,
}

impl From<ContextReport> for FileContextDto {
    fn from(r: ContextReport) -> Self {
        FileContextDto {
            tokens: r.tokens,
            budget: r.budget,
            dropped: r.dropped,
            masked: r.masked,
            pieces: r
                .pieces
                .into_iter()
                .map(|p| ContextPieceDto {
                    kind: p.kind.as_str(),
                    path: p.path,
                    symbol: p.symbol,
                    start_line: p.start_line,
                    end_line: p.end_line,
                    tokens: p.tokens,
                    reason: p.reason,
                })
                .collect(),
            tools: r
                .tools
                .into_iter()
                .map(|t| ToolFindingDto {
                    tool: t.tool,
                    rule: t.rule,
                    line: t.line,
                    severity: t.severity.as_str(),
                    message: t.message,
                    outcome: t.outcome.as_str(),
                    reason: t.reason,
                })
                .collect(),
        }
    }
}

/// What gathering a round's context cost and found.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct RoundContextDto {
    /// `full`, or `none` (the diff alone).
    mode: String,
    /// Where the code was read: `hostA API`, `hostB API`, or a runner's `checkout`.
    source: String,
    /// Calls made to it (bounded by `REVIEW_CONTEXT_MAX_CALLS`).
    #[schema(minimum = 0)]
    calls: u32,
    /// Bytes received (bounded by `REVIEW_CONTEXT_MAX_MB`).
    #[schema(minimum = 0)]
    bytes: u64,
    /// Contents found in the cache instead of read again.
    #[schema(minimum = 0)]
    cache_hits: u32,
    /// A limit left some context unread.
    limited: bool,
    /// Reads that failed (the first few); the review went on without them.
    errors: Vec<String>,
    /// Files and lines of the repository's symbol index at head.
    #[schema(minimum = 0)]
    indexed_files: u64,
    #[schema(minimum = 0)]
    indexed_lines: u64,
    /// Guidance files read.
    guidance: Vec<String>,
    /// Tokens of the part every prompt of the round shares.
    #[schema(minimum = 0)]
    shared_tokens: u32,
    #[schema(minimum = 0)]
    elapsed_ms: u64,
}

impl From<ContextStats> for RoundContextDto {
    fn from(s: ContextStats) -> Self {
        RoundContextDto {
            mode: s.mode,
            source: s.source,
            calls: s.calls,
            bytes: s.bytes,
            cache_hits: s.cache_hits,
            limited: s.limited,
            errors: s.errors,
            indexed_files: u64::try_from(s.indexed_files).unwrap_or(u64::MAX),
            indexed_lines: u64::try_from(s.indexed_lines).unwrap_or(u64::MAX),
            guidance: s.guidance,
            shared_tokens: s.shared_tokens,
            elapsed_ms: s.elapsed_ms,
        }
    }
}

/// The tokens of a review's AI calls.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewTokensDto {
    #[schema(minimum = 0)]
    prompt: i64,
    #[schema(minimum = 0)]
    completion: i64,
    #[schema(minimum = 0)]
    total: i64,
    /// Of the prompt tokens, those the provider served from its prompt cache.
    #[schema(minimum = 0)]
    cached: i64,
}

impl From<TokenTotals> for ReviewTokensDto {
    fn from(t: TokenTotals) -> Self {
        ReviewTokensDto {
            prompt: t.prompt,
            completion: t.completion,
            total: t.total,
            cached: t.cached,
        }
    }
}
