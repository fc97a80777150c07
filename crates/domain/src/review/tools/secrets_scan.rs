//! The built-in secrets scan: every line a diff adds, read for the token shapes
//! and named secret values that are masked before any prompt. It needs no model
//! and no tool on the machine, so it runs on every review, on the server and on
//! runners, and its findings are always posted (as errors, the value masked).

use super::ToolFinding;
use crate::context::secrets;
use crate::model::grade::Severity;

/// The tool name its findings carry.
pub const TOOL: &str = "reviewd-secrets";
/// Longest excerpt of the flagged line quoted (after masking).
const MAX_EXCERPT: usize = 120;

/// The secrets on the lines `diff` adds to `path`, one finding per line and kind.
#[must_use]
pub fn scan(path: &str, diff: &str) -> Vec<ToolFinding> {
    let mut found = Vec::new();
    let mut next_new: Option<u32> = None;
    for line in diff.lines() {
        if let Some(start) = hunk_new_start(line) {
            next_new = Some(start);
            continue;
        }
        let Some(n) = next_new else { continue };
        match line.as_bytes().first() {
            Some(b'+') => {
                let text = &line[1..];
                for kind in secrets::kinds(text) {
                    found.push(finding(path, n, kind, text));
                }
                next_new = Some(n + 1);
            }
            Some(b'-' | b'\\') => {}
            _ => next_new = Some(n + 1),
        }
    }
    found
}

fn finding(path: &str, line: u32, kind: &str, text: &str) -> ToolFinding {
    let (masked, _) = secrets::mask(text.trim());
    let excerpt: String = masked.chars().take(MAX_EXCERPT).collect();
    ToolFinding {
        tool: TOOL.into(),
        rule: kind.replace(' ', "-"),
        path: path.into(),
        line,
        severity: Severity::Error,
        message: format!(
            "{} {kind} is committed here (`{}`). Remove it from the change, revoke or rotate it (it stays in the branch's history), and read it from the environment or a secret store.",
            if kind.starts_with(['A', 'E', 'I', 'O', 'U', 'a', 'e', 'i', 'o', 'u']) {
                "An"
            } else {
                "A"
            },
            excerpt.replace('`', "'")
        ),
    }
}

/// The new-side start of a hunk header `@@ -a,b +c,d @@`.
fn hunk_new_start(line: &str) -> Option<u32> {
    let rest = line.strip_prefix("@@ ")?;
    let plus = rest.split_whitespace().find(|p| p.starts_with('+'))?;
    plus[1..].split(',').next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_on_added_lines_are_found_at_their_new_line_and_never_quoted() {
        let diff = "@@ -1,3 +1,5 @@\n import os\n-old = 1\n+AWS_KEY = \"AKIAIOSFODNN7EXAMPLE\"\n+name = \"plain\"\n+db_password = 'hunter2-very-secret'\n x = 2\n";
        let found = scan("app/settings.py", diff);
        let lines: Vec<(u32, &str)> = found.iter().map(|f| (f.line, f.rule.as_str())).collect();
        assert_eq!(lines, vec![(2, "AWS-access-key"), (4, "secret-assignment")]);
        for f in &found {
            assert_eq!(f.severity, Severity::Error);
            assert!(!f.message.contains("AKIAIOSFODNN7EXAMPLE"), "{}", f.message);
            assert!(!f.message.contains("hunter2"), "{}", f.message);
            assert!(f.message.contains(secrets::MASK), "{}", f.message);
        }
    }

    #[test]
    fn removed_lines_context_and_placeholders_are_not_findings() {
        let diff = "@@ -4,2 +4,2 @@\n-token = \"ghp_0123456789abcdefghijABCDEFGHIJ0123456789\"\n+token = \"${GITHUB_TOKEN}\"\n password = \"hunter2-very-secret\"\n";
        assert_eq!(scan("a.py", diff), vec![]);
    }
}
