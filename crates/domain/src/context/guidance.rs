//! The team's written guidance: the files teams keep for reviewers and coding
//! agents, read at the MR's head, and `.reviewd.yml`'s `instructions`.

use super::pieces::{ContextPiece, PieceKind};

/// Files read as guidance, in this order, when they exist at head.
pub const GUIDANCE_FILES: &[&str] = &[
    "AGENTS.md",
    "CONTRIBUTING.md",
    ".github/copilot-instructions.md",
    "REVIEW.md",
    ".github/CONTRIBUTING.md",
    "docs/CONTRIBUTING.md",
    "CLAUDE.md",
    ".cursorrules",
    "STYLEGUIDE.md",
    ".gemini/styleguide.md",
];

/// Names tried without an archive (each a call, most of them answered 404).
pub const PROBED_WITHOUT_ARCHIVE: usize = 4;

/// Most files read as guidance (each a call where no archive was read).
pub const MAX_GUIDANCE_FILES: usize = 4;

/// A guidance file as a piece, cut to `max_chars`.
#[must_use]
pub fn file_piece(path: &str, text: &str, max_chars: usize) -> ContextPiece {
    ContextPiece {
        kind: PieceKind::Guidance,
        path: path.to_owned(),
        symbol: None,
        start_line: 0,
        end_line: 0,
        text: cut(text, max_chars),
        reason: "the team's guidance for contributors and reviewers".to_owned(),
        score: 0,
        language: Some("markdown"),
    }
}

/// `.reviewd.yml`'s `instructions` as a piece.
#[must_use]
pub fn instructions_piece(text: &str, max_chars: usize) -> ContextPiece {
    ContextPiece {
        kind: PieceKind::Guidance,
        path: ".reviewd.yml".to_owned(),
        symbol: Some("instructions".to_owned()),
        start_line: 0,
        end_line: 0,
        text: cut(text.trim(), max_chars),
        reason: "the repository's review instructions".to_owned(),
        score: 0,
        language: None,
    }
}

/// The first `max_chars` characters, cut at a line, saying so.
#[must_use]
pub fn cut(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let mut out = String::new();
    for line in text.lines() {
        if out.chars().count() + line.chars().count() + 1 > max_chars {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    if out.is_empty() {
        out = text.chars().take(max_chars).collect();
        out.push('\n');
    }
    out.push_str("… (cut to fit the context budget)\n");
    out
}
