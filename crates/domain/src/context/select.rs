//! The candidate pieces of one file's (or one diff piece's) context, each scored:
//! the symbols its hunks sit in, the definitions its changed lines use, and the
//! uses elsewhere of what it modifies, renames or deletes.

use super::index::{SymbolIndex, enclosing, is_ident};
use super::pieces::{ContextPiece, PieceKind};
use crate::ports::syntax::{Outline, Symbol};
use crate::review::diff_lines::DiffLines;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// A symbol longer than this is quoted as a window around the change.
pub const MAX_ENCLOSING_LINES: u32 = 200;
/// Lines around a hunk when no symbol holds it (or it is too long).
pub const WINDOW_LINES: u32 = 20;
/// A definition is quoted up to this many lines (its signature and start).
pub const MAX_DEFINITION_LINES: u32 = 60;
/// A caller is quoted whole up to this many lines, else around the use.
pub const MAX_CALLER_LINES: u32 = 40;
/// A name defined more often than this is too common to look up (`new`, `get`).
const MAX_DEFINITIONS: usize = 8;
/// Uses quoted per changed symbol.
const MAX_CALLERS: usize = 4;

/// Scores: higher goes in first when the budget is short.
pub mod score {
    pub const ENCLOSING: u32 = 1_000;
    pub const PINNED: u32 = 950;
    pub const CALLER_OF_REMOVED: u32 = 800;
    pub const DEFINITION_ELSEWHERE: u32 = 600;
    pub const DEFINITION_HERE: u32 = 520;
    pub const CALLER_OF_MODIFIED: u32 = 400;
}

/// One version of a file: its text and outline.
#[derive(Debug, Clone, Copy)]
pub struct Version<'a> {
    pub text: &'a str,
    pub outline: Option<&'a Outline>,
}

/// A changed file as the selection sees it.
#[derive(Debug, Clone, Copy)]
pub struct FileSides<'a> {
    pub path: &'a str,
    pub language: Option<&'static str>,
    pub head: Option<Version<'a>>,
    pub base: Option<Version<'a>>,
}

/// What a change does to a symbol, for its callers' sake.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Change {
    /// Gone from the file at head (deleted, or renamed: its callers are left behind).
    Removed,
    Modified,
}

/// Every candidate piece for the change `diff` makes to `file`. `allowed` says
/// whether another file may be quoted (secret files, `context.never` and ignore
/// globs may not).
#[must_use]
pub fn candidates(
    file: FileSides<'_>,
    diff: &DiffLines,
    index: Option<&SymbolIndex>,
    allowed: &dyn Fn(&str) -> bool,
) -> Vec<ContextPiece> {
    let mut pieces = Vec::new();
    let Some(head) = file.head else {
        return pieces;
    };
    let added: BTreeSet<u32> = diff.added().collect();
    let quoted = around_hunks(file, head, diff, &added, &mut pieces);
    definitions(file, head, &added, &quoted, index, allowed, &mut pieces);
    callers(file, head, diff, &added, index, allowed, &mut pieces);
    pieces
}

/// The enclosing symbol of every hunk, or a window of lines around it. Returns
/// the head lines quoted.
fn around_hunks(
    file: FileSides<'_>,
    head: Version<'_>,
    diff: &DiffLines,
    added: &BTreeSet<u32>,
    pieces: &mut Vec<ContextPiece>,
) -> Vec<(u32, u32)> {
    let total = u32::try_from(head.text.lines().count()).unwrap_or(u32::MAX);
    let mut quoted: Vec<(u32, u32)> = Vec::new();
    for (start, end, _) in diff.spans() {
        let changed: Vec<u32> = added.range(start..=end).copied().collect();
        let anchors = if changed.is_empty() {
            vec![start]
        } else {
            changed
        };
        let mut symbols: Vec<&Symbol> = Vec::new();
        let mut loose = false;
        for line in anchors {
            match head.outline.and_then(|o| enclosing(o, line)) {
                Some(s) if !symbols.contains(&s) => symbols.push(s),
                Some(_) => {}
                None => loose = true,
            }
        }
        for symbol in symbols {
            let (piece_start, piece_end, kind, reason) = if symbol.lines() <= MAX_ENCLOSING_LINES {
                (
                    symbol.start_line,
                    symbol.end_line,
                    PieceKind::Enclosing,
                    format!("the {} this change sits in", symbol.kind.as_str()),
                )
            } else {
                (
                    start.saturating_sub(WINDOW_LINES).max(symbol.start_line),
                    (end + WINDOW_LINES).min(symbol.end_line),
                    PieceKind::Window,
                    format!(
                        "lines around the change in {} `{}` ({} lines, too long to quote whole)",
                        symbol.kind.as_str(),
                        symbol.name,
                        symbol.lines()
                    ),
                )
            };
            push_quote(
                pieces,
                &mut quoted,
                file,
                head.text,
                (piece_start, piece_end),
                kind,
                Some(symbol.name.clone()),
                reason,
            );
        }
        if loose {
            let reason = if head.outline.is_some() {
                "lines around the change (outside any symbol)"
            } else {
                "lines around the change (no grammar reads this file)"
            };
            push_quote(
                pieces,
                &mut quoted,
                file,
                head.text,
                (
                    start.saturating_sub(WINDOW_LINES).max(1),
                    (end + WINDOW_LINES).min(total),
                ),
                PieceKind::Window,
                None,
                reason.to_owned(),
            );
        }
    }
    quoted
}

#[expect(
    clippy::too_many_arguments,
    reason = "one quote's fields, named at the call"
)]
fn push_quote(
    pieces: &mut Vec<ContextPiece>,
    quoted: &mut Vec<(u32, u32)>,
    file: FileSides<'_>,
    text: &str,
    (start, end): (u32, u32),
    kind: PieceKind,
    symbol: Option<String>,
    reason: String,
) {
    if quoted.iter().any(|&(s, e)| s <= start && end <= e) {
        return;
    }
    quoted.push((start, end));
    pieces.push(ContextPiece {
        kind,
        path: file.path.to_owned(),
        symbol,
        start_line: start,
        end_line: end,
        text: lines(text, start, end),
        reason,
        score: score::ENCLOSING,
        language: file.language,
    });
}

/// The definitions of the names the added lines use, wherever they are.
fn definitions(
    file: FileSides<'_>,
    head: Version<'_>,
    added: &BTreeSet<u32>,
    quoted: &[(u32, u32)],
    index: Option<&SymbolIndex>,
    allowed: &dyn Fn(&str) -> bool,
    pieces: &mut Vec<ContextPiece>,
) {
    let used = names_on_lines(head.text, added, head.outline);
    let own_dir = dir(file.path);
    for (name, uses) in used {
        // Candidates: (path, symbol, text, language).
        let mut found: Vec<(&str, &Symbol, &str, Option<&'static str>)> = match index {
            Some(index) => {
                if index.definition_count(&name) > MAX_DEFINITIONS {
                    continue;
                }
                index
                    .definitions(&name)
                    .map(|(f, s)| {
                        let language = f.outline.as_ref().map(|o| o.language);
                        (f.path.as_str(), s, &*f.text, language)
                    })
                    .collect()
            }
            None => head
                .outline
                .into_iter()
                .flat_map(|o| o.symbols.iter().filter(|s| s.name == name))
                .map(|s| (file.path, s, head.text, file.language))
                .collect(),
        };
        let ambiguity = u32::try_from(found.len()).unwrap_or(u32::MAX);
        // The file's own version at head is the index's too; the change itself
        // (a definition holding an added line) and what is quoted already are not
        // worth a second quote.
        found.retain(|(path, s, _, _)| {
            if *path != file.path {
                return allowed(path);
            }
            !added.iter().any(|&l| s.contains(l))
                && !quoted
                    .iter()
                    .any(|&(a, b)| a <= s.start_line && s.end_line <= b)
        });
        // Nearest first: the same directory, then the rest.
        found.sort_by_key(|(path, s, _, _)| {
            (
                *path != file.path,
                dir(path) != own_dir,
                *path,
                s.start_line,
            )
        });
        for (path, symbol, text, language) in found.into_iter().take(2) {
            let here = path == file.path;
            let base = if here {
                score::DEFINITION_HERE
            } else {
                score::DEFINITION_ELSEWHERE
            };
            // Its doc comment too: what a definition promises (units, None) is
            // often written there.
            let start = doc_start(text, symbol.start_line);
            let end = symbol.end_line.min(start + MAX_DEFINITION_LINES - 1);
            let cut = if end < symbol.end_line {
                format!(", first {MAX_DEFINITION_LINES} of {} lines", symbol.lines())
            } else {
                String::new()
            };
            pieces.push(ContextPiece {
                kind: PieceKind::Definition,
                path: path.to_owned(),
                symbol: Some(name.clone()),
                start_line: start,
                end_line: end,
                text: lines(text, start, end),
                reason: format!(
                    "defines {} `{name}`, used by the changed lines{cut}",
                    symbol.kind.as_str()
                ),
                score: (base + uses.min(5) * 10).saturating_sub(15 * ambiguity.saturating_sub(1)),
                language,
            });
        }
    }
}

/// The uses elsewhere of the symbols the change modifies, renames or deletes.
fn callers(
    file: FileSides<'_>,
    head: Version<'_>,
    diff: &DiffLines,
    added: &BTreeSet<u32>,
    index: Option<&SymbolIndex>,
    allowed: &dyn Fn(&str) -> bool,
    pieces: &mut Vec<ContextPiece>,
) {
    let Some(index) = index else { return };
    let at_head: HashSet<&str> = head
        .outline
        .map(|o| o.symbols.iter().map(|s| s.name.as_str()).collect())
        .unwrap_or_default();
    let at_base: HashSet<&str> = file
        .base
        .and_then(|b| b.outline)
        .map(|o| o.symbols.iter().map(|s| s.name.as_str()).collect())
        .unwrap_or_default();
    let mut changed: BTreeMap<String, Change> = BTreeMap::new();
    if let Some(outline) = head.outline {
        for &line in added {
            // A symbol new in this change has no callers yet worth quoting.
            if let Some(s) = enclosing(outline, line)
                && (at_base.contains(s.name.as_str()) || file.base.is_none())
            {
                changed.entry(s.name.clone()).or_insert(Change::Modified);
            }
        }
    }
    if let Some(base_outline) = file.base.and_then(|b| b.outline) {
        for line in diff.removed() {
            if let Some(s) = enclosing(base_outline, line) {
                let change = if at_head.contains(s.name.as_str()) {
                    Change::Modified
                } else {
                    Change::Removed
                };
                let entry = changed.entry(s.name.clone()).or_insert(change);
                *entry = (*entry).min(change);
            }
        }
    }
    for (name, change) in changed {
        if name.chars().count() < 3 || index.definition_count(&name) > MAX_DEFINITIONS {
            continue;
        }
        let sites = index.uses(&name, 64);
        let mut taken = 0usize;
        for site in sites {
            let caller = index.file_at(site.file);
            if caller.path == file.path || !allowed(&caller.path) {
                continue;
            }
            let (start, end, symbol) = match caller.enclosing(site.line) {
                Some(s) if s.lines() <= MAX_CALLER_LINES => {
                    (s.start_line, s.end_line, Some(s.name.clone()))
                }
                Some(s) => (
                    site.line.saturating_sub(6).max(s.start_line),
                    (site.line + 6).min(s.end_line),
                    Some(s.name.clone()),
                ),
                None => (site.line.saturating_sub(6).max(1), site.line + 6, None),
            };
            if pieces
                .iter()
                .any(|p| p.path == caller.path && p.start_line <= start && end <= p.end_line)
            {
                continue;
            }
            let (reason, base) = match change {
                Change::Removed => (
                    format!("uses `{name}`, which this change removes or renames"),
                    score::CALLER_OF_REMOVED,
                ),
                Change::Modified => (
                    format!("uses `{name}`, which this change modifies"),
                    score::CALLER_OF_MODIFIED,
                ),
            };
            pieces.push(ContextPiece {
                kind: PieceKind::Caller,
                path: caller.path.clone(),
                symbol: symbol.or_else(|| Some(name.clone())),
                start_line: start,
                end_line: end,
                text: lines(&caller.text, start, end),
                reason,
                score: base.saturating_sub(u32::try_from(taken).unwrap_or(0) * 10),
                language: caller.outline.as_ref().map(|o| o.language),
            });
            taken += 1;
            if taken == MAX_CALLERS {
                break;
            }
        }
    }
}

/// The first line of the comment block right above line `start` (doc comments),
/// at most 12 lines up; `start` when there is none.
fn doc_start(text: &str, start: u32) -> u32 {
    let all: Vec<&str> = text.lines().collect();
    let mut first = start;
    while first > 1 && start - first < 12 {
        let above = all.get(first as usize - 2).map_or("", |l| l.trim_start());
        let comment = ["///", "//", "#", "/*", "*", "--"]
            .iter()
            .any(|m| above.starts_with(m))
            && !above.starts_with("#[")
            && !above.starts_with("#include")
            && !above.starts_with("#define");
        if !comment {
            break;
        }
        first -= 1;
    }
    first
}

/// The names the given lines use, with how often: identifiers of three
/// characters or more, twice for the parser's references (calls).
fn names_on_lines(
    text: &str,
    wanted: &BTreeSet<u32>,
    outline: Option<&Outline>,
) -> BTreeMap<String, u32> {
    let mut names: BTreeMap<String, u32> = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
        if !wanted.contains(&n) {
            continue;
        }
        for word in identifiers(line) {
            *names.entry(word.to_owned()).or_default() += 1;
        }
    }
    if let Some(outline) = outline {
        for r in &outline.references {
            if wanted.contains(&r.line) {
                *names.entry(r.name.clone()).or_default() += 1;
            }
        }
    }
    names
}

/// The identifiers of a line (three characters or more, not starting with a digit).
pub fn identifiers(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| !is_ident(c))
        .filter(|w| w.chars().count() >= 3 && !w.starts_with(|c: char| c.is_ascii_digit()))
        .map(|w| w.trim_start_matches('$'))
}

fn dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Lines `start..=end` of `text` (1-based), joined.
#[must_use]
pub fn lines(text: &str, start: u32, end: u32) -> String {
    let skip = start.saturating_sub(1) as usize;
    let take = (end.saturating_sub(start) + 1) as usize;
    let mut out = String::new();
    for line in text.lines().skip(skip).take(take) {
        out.push_str(line);
        out.push('\n');
    }
    out
}
