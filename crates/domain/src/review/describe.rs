//! `describe`: reviewd's own section of a merge request's description, between
//! two markers, written or rewritten without touching the author's text around it.

use crate::model::diff::{ChangeType, FileDiff};

const START: &str = "<!-- reviewd:describe:start -->";
const END: &str = "<!-- reviewd:describe:end -->";

/// The section: the summary, then a walkthrough table of the files.
#[must_use]
pub fn section(summary: &str, files: &[FileDiff]) -> String {
    let mut out = format!("{START}\n## Summary (reviewd)\n\n{}\n\n", summary.trim());
    out.push_str("## Walkthrough\n\n| File | Change | Lines |\n|---|---|---|\n");
    for f in files {
        let (added, removed) = f.diff.as_deref().map_or((0, 0), counts);
        let change = match f.change_type {
            ChangeType::New => "added",
            ChangeType::Deleted => "deleted",
            ChangeType::Renamed => "renamed",
            ChangeType::Modified => "modified",
        };
        out.push_str(&format!(
            "| `{}` | {change} | +{added} −{removed} |\n",
            f.new_path.replace(['|', '`'], "")
        ));
    }
    out.push_str(END);
    out
}

fn counts(diff: &str) -> (usize, usize) {
    diff.lines().fold((0, 0), |(a, r), l| {
        if l.starts_with('+') && !l.starts_with("+++") {
            (a + 1, r)
        } else if l.starts_with('-') && !l.starts_with("---") {
            (a, r + 1)
        } else {
            (a, r)
        }
    })
}

/// `description` with `section` in place of reviewd's earlier one, or after the
/// author's text when there was none.
#[must_use]
pub fn merged(description: Option<&str>, section: &str) -> String {
    let description = description.unwrap_or("");
    if let Some(start) = description.find(START)
        && let Some(end) = description[start..].find(END)
    {
        let after = &description[start + end + END.len()..];
        return format!("{}{section}{after}", &description[..start]);
    }
    let author = description.trim_end();
    if author.is_empty() {
        section.to_owned()
    } else {
        format!("{author}\n\n{section}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, diff: &str) -> FileDiff {
        FileDiff {
            new_path: path.into(),
            old_path: None,
            change_type: ChangeType::Modified,
            diff: Some(diff.into()),
        }
    }

    #[test]
    fn the_authors_text_is_kept_and_the_section_replaced_in_place() {
        let first = section("Adds a cache.", &[file("src/a|b.rs", "@@\n+x\n+y\n-z")]);
        assert!(
            first.contains("| `src/ab.rs` | modified | +2 −1 |"),
            "{first}"
        );
        let written = merged(Some("Fixes #12.\n\nPlease look at the cache."), &first);
        assert!(written.starts_with("Fixes #12.\n\nPlease look at the cache.\n\n"));
        let edited = written.replace("Fixes #12.", "Fixes #12 and #13.") + "\n\nP.S. tests later";
        let second = section("Adds a cache, now bounded.", &[]);
        let rewritten = merged(Some(&edited), &second);
        assert!(rewritten.starts_with("Fixes #12 and #13."));
        assert!(rewritten.ends_with("P.S. tests later"));
        assert!(rewritten.contains("now bounded"));
        assert!(
            !rewritten.contains("Adds a cache.\n"),
            "the old section is gone"
        );
        assert_eq!(rewritten.matches(START).count(), 1);
        assert_eq!(merged(None, &second), second);
    }
}
