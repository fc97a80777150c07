//! Committable suggestions: replacement code the model may propose with a comment,
//! for new-side lines `start_line..=end_line` (the comment's line among them). The
//! platforms show it as a block the author applies with one click, so it is posted
//! only where it replaces exactly the lines it names: a suggestion that does not fit
//! the diff is dropped and its comment posted without it, never on other lines.
//!
//! The platforms' syntaxes (hostA's ```` ```suggestion:-N+M ````, hostB's
//! ```` ```suggestion ```` on a line range) are written by the adapters; [`fence`]
//! is the part they share.

use super::diff_lines::{DiffLines, Placement};
pub use crate::model::diff::Suggestion;

/// Most lines one suggestion may replace: past that a model is rewriting code, not
/// fixing a line, and a reviewer would not apply it in one click.
pub const MAX_SPAN: u32 = 50;

/// Longest replacement code kept, in characters (50 lines of 200 characters).
pub const MAX_CODE_CHARS: usize = 10_000;

/// Why a proposed suggestion is not usable whatever the diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Unusable {
    #[error("its lines are not line numbers")]
    NotLines,
    #[error("its end line comes before its start line")]
    Reversed,
    #[error("it spans more than {MAX_SPAN} lines")]
    TooLong,
    #[error("the comment's line is not among its lines")]
    LineOutside,
    #[error("its code is longer than {MAX_CODE_CHARS} characters")]
    CodeTooLong,
    #[error("a line of its code would read as a GitLab quick action")]
    QuickAction,
}

/// Why a suggestion does not fit the diff it would be posted on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Misfit {
    #[error("its comment was moved off the line the model named")]
    CommentMoved,
    #[error("its comment is not on one of its lines")]
    LineOutside,
    #[error("not all of its lines are in one hunk of the diff's new side")]
    LinesNotShown,
}

impl Suggestion {
    /// A suggestion for a comment on `line`, checked and its code normalised (CRLF
    /// line breaks read as LF, one trailing line break dropped: the block adds it).
    ///
    /// Code is never altered beyond that, since the author applies it as it is: so
    /// code with a line starting with `/` and a letter, which GitLab could run as a
    /// quick action under the bot's token, is refused rather than defused.
    ///
    /// # Errors
    /// [`Unusable`] naming the first thing wrong.
    pub fn checked(
        line: u32,
        start_line: i64,
        end_line: i64,
        code: &str,
    ) -> Result<Self, Unusable> {
        let (Ok(start_line), Ok(end_line)) = (u32::try_from(start_line), u32::try_from(end_line))
        else {
            return Err(Unusable::NotLines);
        };
        if start_line == 0 {
            return Err(Unusable::NotLines);
        }
        if end_line < start_line {
            return Err(Unusable::Reversed);
        }
        if end_line - start_line >= MAX_SPAN {
            return Err(Unusable::TooLong);
        }
        if !(start_line..=end_line).contains(&line) {
            return Err(Unusable::LineOutside);
        }
        let code = code.replace("\r\n", "\n");
        let code = code.strip_suffix('\n').unwrap_or(&code);
        if code.chars().count() > MAX_CODE_CHARS {
            return Err(Unusable::CodeTooLong);
        }
        if code.lines().any(reads_as_quick_action) {
            return Err(Unusable::QuickAction);
        }
        Ok(Self {
            start_line,
            end_line,
            code: code.to_owned(),
        })
    }

    /// Whether it may be posted with a comment the model put on `wanted`, placed by
    /// `lines.place(wanted)`: the comment stays on that line (not moved to the
    /// nearest added one) and every line it replaces is a new-side line of one hunk
    /// (added or context), so both platforms show and apply it where it was meant.
    ///
    /// # Errors
    /// [`Misfit`] saying why not.
    pub fn fits(&self, lines: &DiffLines, wanted: u32, placement: Placement) -> Result<(), Misfit> {
        match placement {
            Placement::Exact(line) if line == wanted => {}
            _ => return Err(Misfit::CommentMoved),
        }
        if !(self.start_line..=self.end_line).contains(&wanted) {
            return Err(Misfit::LineOutside);
        }
        if !lines.shows_in_one_hunk(self.start_line, self.end_line) {
            return Err(Misfit::LinesNotShown);
        }
        Ok(())
    }
}

/// A line GitLab might take for a quick action: `/` then a letter, as `defuse`
/// finds them in the model's other text.
fn reads_as_quick_action(line: &str) -> bool {
    let mut chars = line.trim_start().chars();
    chars.next() == Some('/') && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
}

/// The backticks that open and close a suggestion block around `code`: three, or
/// one more than the longest run of backticks in the code, so that code holding a
/// fence of its own (a Markdown file, a doc comment) cannot close the block early.
/// Both platforms read a longer fence (CommonMark).
#[must_use]
pub fn fence(code: &str) -> String {
    let longest = code.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suggestion(start: u32, end: u32) -> Suggestion {
        Suggestion {
            start_line: start,
            end_line: end,
            code: "x".into(),
        }
    }

    #[test]
    fn a_proposal_is_checked_and_its_code_normalised() {
        assert_eq!(
            Suggestion::checked(3, 2, 4, "a\r\nb\n"),
            Ok(Suggestion {
                start_line: 2,
                end_line: 4,
                code: "a\nb".into()
            })
        );
        assert_eq!(
            Suggestion::checked(3, 3, 3, "").map(|s| s.code),
            Ok(String::new()),
            "empty code deletes the line"
        );
        assert_eq!(
            Suggestion::checked(3, 3, 3, "keep\n\n").map(|s| s.code),
            Ok("keep\n".into()),
            "only one trailing line break is the block's"
        );
    }

    #[test]
    fn nonsense_is_refused() {
        assert_eq!(Suggestion::checked(3, 0, 3, "x"), Err(Unusable::NotLines));
        assert_eq!(Suggestion::checked(3, -1, 3, "x"), Err(Unusable::NotLines));
        assert_eq!(
            Suggestion::checked(3, 3, i64::from(u32::MAX) + 1, "x"),
            Err(Unusable::NotLines)
        );
        assert_eq!(Suggestion::checked(3, 4, 2, "x"), Err(Unusable::Reversed));
        assert_eq!(Suggestion::checked(3, 1, 51, "x"), Err(Unusable::TooLong));
        assert!(
            Suggestion::checked(3, 1, 50, "x").is_ok(),
            "50 lines is the most"
        );
        assert_eq!(
            Suggestion::checked(9, 2, 4, "x"),
            Err(Unusable::LineOutside)
        );
        assert_eq!(
            Suggestion::checked(3, 3, 3, &"x".repeat(MAX_CODE_CHARS + 1)),
            Err(Unusable::CodeTooLong)
        );
        assert_eq!(
            Suggestion::checked(3, 3, 3, "ok();\n  /approve"),
            Err(Unusable::QuickAction)
        );
        assert!(
            Suggestion::checked(3, 3, 3, "// a comment\n/* another */\nx / y").is_ok(),
            "comments and division are code, not quick actions"
        );
    }

    // New side: 10 context, 11 added, 12 context; 20 added, 21 added; then a hunk
    // that only removes lines (no new-side line).
    const DIFF: &str = "@@ -10,3 +10,3 @@\n a\n-b\n+B\n c\n@@ -20,0 +20,2 @@\n+p\n+q\n@@ -40,2 +41,0 @@\n-gone\n-too\n";

    #[test]
    fn a_suggestion_fits_only_lines_of_one_hunk_under_an_unmoved_comment() {
        let lines = DiffLines::parse(DIFF);
        let fits = |s: &Suggestion, wanted| s.fits(&lines, wanted, lines.place(wanted));
        assert_eq!(fits(&suggestion(11, 11), 11), Ok(()));
        assert_eq!(
            fits(&suggestion(10, 12), 11),
            Ok(()),
            "context lines of the hunk may be replaced"
        );
        assert_eq!(fits(&suggestion(20, 21), 21), Ok(()));
        assert_eq!(
            fits(&suggestion(10, 10), 10),
            Err(Misfit::CommentMoved),
            "a comment on a context line moves to the nearest added one"
        );
        assert_eq!(
            fits(&suggestion(11, 13), 11),
            Err(Misfit::LinesNotShown),
            "line 13 is outside the hunk"
        );
        assert_eq!(
            fits(&suggestion(11, 20), 11),
            Err(Misfit::LinesNotShown),
            "two hunks and the lines between them"
        );
        assert_eq!(
            fits(&suggestion(41, 42), 41),
            Err(Misfit::CommentMoved),
            "a hunk that only deletes has no line to comment on"
        );
        assert_eq!(
            suggestion(41, 42).fits(&lines, 41, Placement::Exact(41)),
            Err(Misfit::LinesNotShown),
            "nor lines to replace"
        );
        assert_eq!(
            suggestion(20, 20).fits(&lines, 21, Placement::Exact(21)),
            Err(Misfit::LineOutside)
        );
    }

    #[test]
    fn the_fence_outgrows_any_backticks_in_the_code() {
        assert_eq!(fence("let x = 1;"), "```");
        assert_eq!(fence("`code` and ``more``"), "```");
        assert_eq!(fence("```rust\nfn f() {}\n```"), "````");
        assert_eq!(fence("a ````` b"), "``````");
    }
}
