//! The prompt of one file (or one piece of a large file).

use crate::model::diff::ChangeType;

/// The reviewer's standing instructions. Templates and rules extend them (next).
pub const SYSTEM_PROMPT: &str = "You are a meticulous senior code reviewer. Review only the changed lines of the diff you are given. \
Report real problems: bugs, security issues, data loss, concurrency and error-handling mistakes, and clear maintainability issues. \
Do not praise, do not restate the code, do not comment on formatting a linter would catch. \
Each comment names the line in the NEW version of the file (the number shown at the start of each diff line) and a severity: \
error (must fix), warning (should fix), info (worth knowing). If nothing needs saying, return an empty comments list. \
Answer with JSON matching the given schema: a one or two sentence summary of the change to this file, and the comments.";

/// The user message: the MR's context and the diff with new-side line numbers, so the
/// model can name lines exactly.
#[must_use]
pub fn user_prompt(
    mr_title: &str,
    mr_description: Option<&str>,
    file_path: &str,
    change: ChangeType,
    diff: &str,
) -> String {
    let description: String = mr_description.unwrap_or("").chars().take(2000).collect();
    format!(
        "Merge request: {mr_title}\n{}\nFile: {file_path} ({})\n\nDiff (NEW line numbers on the left; `-` lines no longer exist):\n{}",
        if description.trim().is_empty() {
            String::new()
        } else {
            format!("Description:\n{description}\n")
        },
        change.as_str(),
        number_lines(diff)
    )
}

/// Prefixes each diff line with its new-side number (blank for removed lines).
#[must_use]
pub fn number_lines(diff: &str) -> String {
    let mut out = String::with_capacity(diff.len() + diff.len() / 4);
    let mut next: Option<u32> = None;
    for line in diff.lines() {
        if let Some(start) = line
            .strip_prefix("@@ ")
            .and_then(|r| r.split_whitespace().find(|p| p.starts_with('+')))
            .and_then(|p| p[1..].split(',').next()?.parse().ok())
        {
            next = Some(start);
            out.push_str(line);
        } else if let Some(n) = next.as_mut() {
            if line.starts_with('-') || line.starts_with('\\') {
                out.push_str(&format!("      {line}"));
            } else {
                out.push_str(&format!("{n:>5} {line}"));
                *n += 1;
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_new_side_lines_only() {
        let numbered = number_lines("@@ -1,2 +10,3 @@\n a\n-b\n+c\n+d\n");
        assert_eq!(
            numbered,
            "@@ -1,2 +10,3 @@\n   10  a\n      -b\n   11 +c\n   12 +d\n"
        );
        let prompt = user_prompt(
            "Fix",
            Some("why"),
            "src/x.rs",
            ChangeType::Modified,
            "@@ -1 +1 @@\n+x\n",
        );
        assert!(
            prompt.contains("File: src/x.rs (modified)")
                && prompt.contains("    1 +x")
                && prompt.contains("why")
        );
    }
}
