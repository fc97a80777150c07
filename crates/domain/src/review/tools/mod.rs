//! Analyzers' findings in a review. Linters and scanners (run on a runner, or
//! uploaded from CI as SARIF) report findings; only those on lines the MR adds
//! count. They go to the model as evidence for their file, which confirms or sets
//! each aside with its reason, and the ones to post become comments naming the tool
//! and rule, merged into the model's own comment on the same line and rule. The
//! built-in secrets scan needs no model: its findings are always posted, masked.

pub mod evidence;
pub mod merge;
mod round;
pub mod secrets_scan;
pub mod settings;

pub use round::RoundTools;

use super::diff_lines::{DiffLines, Placement};
use crate::model::grade::Severity;
use serde::{Deserialize, Serialize};

/// Most findings of one file that count (the rest are reported as left out): a
/// tool that flags every line must not flood the prompt nor the MR.
pub const MAX_FINDINGS_PER_FILE: usize = 30;
/// Longest finding message kept, in characters.
pub const MAX_MESSAGE_CHARS: usize = 400;
/// Longest tool or rule name kept.
pub const MAX_NAME_CHARS: usize = 80;

/// One analyzer's finding, whatever the tool: the normalised form of a SARIF
/// result, a linter's JSON line or the secrets scan's match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolFinding {
    /// The tool that reported it (`ruff`, `semgrep`, `reviewd-secrets`...).
    pub tool: String,
    /// The tool's rule id (`F401`, `SC2086`...).
    pub rule: String,
    /// The file, from the repository's root.
    pub path: String,
    /// The line in the new version of the file (1-based).
    pub line: u32,
    pub severity: Severity,
    pub message: String,
}

impl ToolFinding {
    /// The finding with its names and message cut to size, made single-line and
    /// stripped of secrets (a tool may quote the line it flags).
    #[must_use]
    pub fn tidy(self) -> Self {
        Self {
            tool: clean_name(&self.tool),
            rule: clean_name(&self.rule),
            message: crate::context::secrets::mask(&one_line(&self.message, MAX_MESSAGE_CHARS)).0,
            ..self
        }
    }

    /// Whether it comes from the built-in secrets scan (posted whatever the
    /// model or the setting says).
    #[must_use]
    pub fn is_secret(&self) -> bool {
        self.tool == secrets_scan::TOOL
    }
}

/// A tool's or rule's name as it is shown and stored: one line, no control
/// character, no backtick (names are quoted in the prompt's fenced block and in
/// `code` spans), at most [`MAX_NAME_CHARS`].
#[must_use]
pub fn clean_name(name: &str) -> String {
    one_line(name, MAX_NAME_CHARS).replace('`', "'")
}

/// `text` on one line, without control characters (a NUL cannot be stored as
/// JSON text in PostgreSQL), at most `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let printable: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    printable
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(max)
        .collect()
}

/// Which tool findings are posted: those the model confirmed (the default), or
/// all of those on changed lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PostMode {
    #[default]
    Confirmed,
    All,
}

/// What became of a finding on a changed line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Posted as its own comment.
    Posted,
    /// Folded into the model's comment on the same line and rule.
    Merged,
    /// Set aside by the model as a false positive (its reason kept).
    Dismissed,
    /// Not confirmed by the model (not asked, or it did not answer), so not posted
    /// under `post: confirmed`.
    Unconfirmed,
}

impl Outcome {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Posted => "posted",
            Outcome::Merged => "merged",
            Outcome::Dismissed => "dismissed",
            Outcome::Unconfirmed => "unconfirmed",
        }
    }
}

/// A finding as the review page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolEvidence {
    pub tool: String,
    pub rule: String,
    pub line: u32,
    pub severity: Severity,
    pub message: String,
    pub outcome: Outcome,
    /// The model's reason for confirming or dismissing it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The findings of `path` that sit on lines the diff adds, tidied, each rule and
/// line once, at most [`MAX_FINDINGS_PER_FILE`] (secrets first, then by severity),
/// and how many were left out (off the changed lines or over the cap).
#[must_use]
pub fn on_changed_lines(
    findings: &[ToolFinding],
    path: &str,
    lines: &DiffLines,
) -> (Vec<ToolFinding>, usize) {
    let of_file: Vec<&ToolFinding> = findings.iter().filter(|f| f.path == path).collect();
    let mut kept: Vec<ToolFinding> = Vec::new();
    for f in &of_file {
        if lines.place(f.line) != Placement::Exact(f.line) {
            continue;
        }
        let f = (*f).clone().tidy();
        if !kept
            .iter()
            .any(|k| k.line == f.line && k.tool == f.tool && k.rule == f.rule)
        {
            kept.push(f);
        }
    }
    kept.sort_by_key(|f| (!f.is_secret(), std::cmp::Reverse(f.severity), f.line));
    kept.truncate(MAX_FINDINGS_PER_FILE);
    let left_out = of_file.len() - kept.len();
    (kept, left_out)
}

#[cfg(test)]
mod tests;
