//! Context as data: each piece with its source, size and reason, so a test (and
//! the review page) can ask "did the definition of X make it in, and why" without
//! reading a prompt.

use serde::{Deserialize, Serialize};

/// What a piece is to the change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PieceKind {
    /// The whole function, method or class a hunk sits in.
    Enclosing,
    /// Lines around a hunk, for a file no grammar reads (or a symbol too long).
    Window,
    /// The definition of a symbol the changed lines use.
    Definition,
    /// A use, elsewhere, of a symbol the change modifies, renames or deletes.
    Caller,
    /// A file `.reviewd.yml` says is always sent (`context.always`).
    Pinned,
    /// The team's written guidance (`AGENTS.md`, `CONTRIBUTING.md`...).
    Guidance,
    /// The MR as a whole: every changed file and what it touches.
    Overview,
}

impl PieceKind {
    pub const ALL: [PieceKind; 7] = [
        PieceKind::Enclosing,
        PieceKind::Window,
        PieceKind::Definition,
        PieceKind::Caller,
        PieceKind::Pinned,
        PieceKind::Guidance,
        PieceKind::Overview,
    ];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            PieceKind::Enclosing => "enclosing",
            PieceKind::Window => "window",
            PieceKind::Definition => "definition",
            PieceKind::Caller => "caller",
            PieceKind::Pinned => "pinned",
            PieceKind::Guidance => "guidance",
            PieceKind::Overview => "overview",
        }
    }
}

/// One piece of context, before it is rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextPiece {
    pub kind: PieceKind,
    pub path: String,
    /// The symbol it is about (`fn find_user`), when it is about one.
    pub symbol: Option<String>,
    /// Lines of `path` it quotes (1-based, inclusive; 0 for none).
    pub start_line: u32,
    pub end_line: u32,
    /// The quoted text (not numbered yet).
    pub text: String,
    /// Why it was chosen, in a few words.
    pub reason: String,
    /// Higher goes in first when the budget is short.
    pub score: u32,
    /// The language for the code fence (`rust`), when known.
    pub language: Option<&'static str>,
}

/// What the review page and the API show of a piece: everything but its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PieceReport {
    pub kind: PieceKind,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
    pub tokens: u32,
    pub reason: String,
}

/// What one file's review was given besides its diff (for every prompt of the
/// file together: a large file is asked in pieces).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextReport {
    /// Tokens of context in the file's prompts (the shared part counted once).
    pub tokens: u32,
    /// The per-prompt budget it was cut to.
    pub budget: u32,
    pub pieces: Vec<PieceReport>,
    /// Pieces found but left out for the budget.
    pub dropped: u32,
    /// Secret-shaped strings masked in what was sent.
    pub masked: u32,
    /// The analyzers' findings on the file's changed lines, and what became of
    /// each (absent from reports stored before tools).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<crate::review::tools::ToolEvidence>,
}

impl ContextReport {
    /// Merges the report of another prompt of the same file.
    pub fn absorb(&mut self, other: ContextReport) {
        self.tokens += other.tokens;
        self.budget = self.budget.max(other.budget);
        self.dropped += other.dropped;
        self.masked += other.masked;
        self.tools.extend(other.tools);
        for piece in other.pieces {
            if !self.pieces.contains(&piece) {
                self.pieces.push(piece);
            }
        }
    }

    /// Whether a piece of `kind` about `symbol` (or quoting `path`) was sent.
    #[must_use]
    pub fn has(&self, kind: PieceKind, needle: &str) -> bool {
        self.pieces
            .iter()
            .any(|p| p.kind == kind && (p.path == needle || p.symbol.as_deref() == Some(needle)))
    }
}
