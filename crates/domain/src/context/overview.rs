//! The MR as a whole, for every file's review: each changed file, its change,
//! and the symbols it touches, so a file's review knows what the others do.

use crate::context::index::enclosing;
use crate::model::diff::FileDiff;
use crate::ports::syntax::Outline;
use crate::review::diff_lines::DiffLines;

/// One line about a changed file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileLine {
    pub path: String,
    pub change: &'static str,
    pub added: usize,
    pub removed: usize,
    /// `function find_user`, `class Store`: what its hunks sit in.
    pub touches: Vec<String>,
    /// Why it is not reviewed, when it is not.
    pub not_reviewed: Option<&'static str>,
}

/// What a file's hunks sit in, at head (added lines) and at base (removed ones).
#[must_use]
pub fn touches(diff: &DiffLines, head: Option<&Outline>, base: Option<&Outline>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |s: Option<&crate::ports::syntax::Symbol>| {
        if let Some(s) = s {
            let label = format!("{} {}", s.kind.as_str(), s.name);
            if !out.contains(&label) {
                out.push(label);
            }
        }
    };
    if let Some(head) = head {
        for line in diff.added() {
            add(enclosing(head, line));
        }
    }
    if let Some(base) = base {
        for line in diff.removed() {
            add(enclosing(base, line));
        }
    }
    out
}

/// The line of `file` before its symbols are known.
#[must_use]
pub fn line_for(file: &FileDiff) -> FileLine {
    let diff = DiffLines::parse(file.diff.as_deref().unwrap_or(""));
    FileLine {
        path: file.new_path.clone(),
        change: file.change_type.as_str(),
        added: diff.added_count(),
        removed: diff.removed_count(),
        touches: Vec::new(),
        not_reviewed: None,
    }
}

/// The overview's text, at most `max_lines` files.
#[must_use]
pub fn render(lines: &[FileLine], max_lines: usize) -> String {
    let mut out = format!("Files changed in this merge request ({}):\n", lines.len());
    for line in lines.iter().take(max_lines) {
        out.push_str(&format!(
            "- {} ({}, +{} -{})",
            line.path, line.change, line.added, line.removed
        ));
        if !line.touches.is_empty() {
            let mut touches = line
                .touches
                .iter()
                .take(8)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ");
            if line.touches.len() > 8 {
                touches.push_str(&format!(" and {} more", line.touches.len() - 8));
            }
            out.push_str(&format!(": {touches}"));
        }
        if let Some(why) = line.not_reviewed {
            out.push_str(&format!(" [not reviewed: {why}]"));
        }
        out.push('\n');
    }
    if lines.len() > max_lines {
        out.push_str(&format!(
            "- … and {} more file(s)\n",
            lines.len() - max_lines
        ));
    }
    out
}
