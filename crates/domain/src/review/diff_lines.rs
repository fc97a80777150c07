//! Lines of the new file that a unified diff shows, so comments land only there.

use std::collections::BTreeSet;

/// One hunk's span on the new side, and its added lines.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Hunk {
    start: u32,
    end: u32,
    added: BTreeSet<u32>,
    /// Old-side numbers of the lines it removes.
    removed: BTreeSet<u32>,
}

/// The new-side lines of a file's diff, hunk by hunk, with the lines each adds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiffLines {
    hunks: Vec<Hunk>,
}

/// Where a model's comment may be posted. Only added lines take comments: GitLab
/// refuses a position on an unchanged line without its old line number, and a remark
/// on a changed line is what a reviewer expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// The line was added by the diff.
    Exact(u32),
    /// Inside a hunk but not added (context): moved to the nearest added line of it.
    Nearest(u32),
    /// Outside every hunk: the comment is dropped rather than posted on a wrong line.
    Outside,
}

impl DiffLines {
    /// Reads the hunks of a unified diff (`@@ -a,b +c,d @@` headers, then lines
    /// starting with ` `, `+`, `-` or `\`).
    #[must_use]
    pub fn parse(diff: &str) -> Self {
        let mut lines = DiffLines::default();
        // The hunk, its next new-side line and its next old-side line.
        let mut current: Option<(Hunk, u32, u32)> = None;
        for line in diff.lines() {
            if let Some(start) = hunk_start(line) {
                if let Some((hunk, _, _)) = current.take() {
                    lines.hunks.push(hunk);
                }
                current = Some((
                    Hunk {
                        start,
                        end: start.saturating_sub(1),
                        added: BTreeSet::new(),
                        removed: BTreeSet::new(),
                    },
                    start,
                    old_start(line).unwrap_or(0),
                ));
                continue;
            }
            let Some((hunk, next, old)) = current.as_mut() else {
                continue;
            };
            match line.as_bytes().first() {
                Some(b'+') => {
                    hunk.added.insert(*next);
                    hunk.end = *next;
                    *next += 1;
                }
                Some(b' ') | None => {
                    hunk.end = *next;
                    *next += 1;
                    *old += 1;
                }
                Some(b'-') => {
                    hunk.removed.insert(*old);
                    *old += 1;
                }
                _ => {} // "\ No newline" markers take no line
            }
        }
        if let Some((hunk, _, _)) = current {
            lines.hunks.push(hunk);
        }
        lines
    }

    /// Lines added by the diff, in order.
    pub fn added(&self) -> impl Iterator<Item = u32> + '_ {
        self.hunks.iter().flat_map(|h| h.added.iter().copied())
    }

    /// Old-side numbers of the lines the diff removes, in order.
    pub fn removed(&self) -> impl Iterator<Item = u32> + '_ {
        self.hunks.iter().flat_map(|h| h.removed.iter().copied())
    }

    /// Each hunk's new-side span `(first, last)` and whether it adds a line.
    pub fn spans(&self) -> impl Iterator<Item = (u32, u32, bool)> + '_ {
        self.hunks
            .iter()
            .map(|h| (h.start, h.end.max(h.start), !h.added.is_empty()))
    }

    /// How many lines the diff removes.
    #[must_use]
    pub fn removed_count(&self) -> usize {
        self.hunks.iter().map(|h| h.removed.len()).sum()
    }

    /// How many lines the diff adds.
    #[must_use]
    pub fn added_count(&self) -> usize {
        self.hunks.iter().map(|h| h.added.len()).sum()
    }

    /// Whether new-side lines `start..=end` are all shown by one hunk (added or
    /// context lines): what a suggestion may replace.
    #[must_use]
    pub fn shows_in_one_hunk(&self, start: u32, end: u32) -> bool {
        start <= end && self.hunks.iter().any(|h| h.start <= start && end <= h.end)
    }

    #[must_use]
    pub fn place(&self, line: u32) -> Placement {
        if self.hunks.iter().any(|h| h.added.contains(&line)) {
            return Placement::Exact(line);
        }
        let Some(hunk) = self
            .hunks
            .iter()
            .find(|h| (h.start..=h.end).contains(&line))
        else {
            return Placement::Outside;
        };
        hunk.added
            .iter()
            .min_by_key(|a| (a.abs_diff(line), **a))
            .map_or(Placement::Outside, |a| Placement::Nearest(*a))
    }
}

/// The old-side start of a hunk header `@@ -a,b +c,d @@ ...`.
fn old_start(line: &str) -> Option<u32> {
    let rest = line.strip_prefix("@@ ")?;
    let minus = rest.split_whitespace().find(|part| part.starts_with('-'))?;
    minus
        .trim_start_matches('-')
        .split(',')
        .next()?
        .parse()
        .ok()
}

/// The new-side start of a hunk header `@@ -a,b +c,d @@ ...`.
fn hunk_start(line: &str) -> Option<u32> {
    let rest = line.strip_prefix("@@ ")?;
    let plus = rest.split_whitespace().find(|part| part.starts_with('+'))?;
    plus.trim_start_matches('+').split(',').next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str = "@@ -1,4 +1,5 @@\n fn main() {\n-    old();\n+    new();\n+    more();\n     done();\n }\n@@ -20,3 +21,3 @@ impl X {\n     a();\n-    b();\n+    c();\n     d();\n\\ No newline at end of file\n";

    #[test]
    fn reads_added_and_context_lines_per_hunk() {
        let lines = DiffLines::parse(DIFF);
        assert_eq!(lines.added().collect::<Vec<_>>(), vec![2, 3, 22]);
        assert_eq!(lines.added_count(), 3);
        assert_eq!(lines.removed().collect::<Vec<_>>(), vec![2, 21]);
        assert_eq!(lines.removed_count(), 2);
        assert_eq!(
            lines.spans().collect::<Vec<_>>(),
            vec![(1, 5, true), (21, 23, true)]
        );
        assert_eq!(
            lines.place(1),
            Placement::Nearest(2),
            "a context line moves to the nearest added line"
        );
        assert_eq!(lines.place(3), Placement::Exact(3));
        assert_eq!(lines.place(23), Placement::Nearest(22));
        assert!(lines.shows_in_one_hunk(1, 5) && lines.shows_in_one_hunk(21, 23));
        assert!(
            !lines.shows_in_one_hunk(5, 21),
            "the gap between hunks is not shown"
        );
        assert!(!lines.shows_in_one_hunk(23, 24) && !lines.shows_in_one_hunk(3, 2));
    }

    #[test]
    fn comments_off_the_diff_move_to_the_nearest_added_line_or_are_dropped() {
        let lines = DiffLines::parse("@@ -10,2 +10,6 @@\n a\n+b\n c\n d\n e\n+f\n");
        assert_eq!(
            lines.place(13),
            Placement::Nearest(11),
            "a tie goes to the lower line"
        );
        assert_eq!(lines.place(14), Placement::Nearest(15));
        assert_eq!(lines.place(15), Placement::Exact(15));
        assert_eq!(DiffLines::parse(DIFF).place(10), Placement::Outside);
        assert_eq!(DiffLines::parse(DIFF).place(0), Placement::Outside);
        let gap = DiffLines::parse("@@ -1,1 +1,1 @@\n-x\n+y\n@@ -9,0 +9,2 @@\n+p\n+q\n");
        assert_eq!(gap.place(5), Placement::Outside, "between hunks");
    }

    #[test]
    fn a_new_file_is_all_added_and_garbage_yields_nothing() {
        let lines = DiffLines::parse("@@ -0,0 +1,3 @@\n+a\n+b\n+c\n");
        assert_eq!(lines.added().collect::<Vec<_>>(), vec![1, 2, 3]);
        assert_eq!(DiffLines::parse("not a diff").added_count(), 0);
        assert_eq!(DiffLines::parse("").place(1), Placement::Outside);
    }
}
