//! The prompt of one file (or one piece of a large file).

use crate::model::diff::ChangeType;

use crate::ports::ActiveRule;

/// The reviewer's standing instructions, used when no template is set.
pub const DEFAULT_FRAME: &str = "You are a meticulous senior code reviewer. Review only the changed lines of the diff you are given. \
Report real problems: bugs, security issues, data loss, concurrency and error-handling mistakes, and clear maintainability issues. \
Do not praise, do not restate the code, do not comment on formatting a linter would catch.";

/// What every prompt asks for, whatever the template: the answer's contract.
pub const ANSWER_FORMAT: &str = "Each comment names the line in the NEW version of the file (the number shown at the start of each diff line) and a severity: \
error (must fix), warning (should fix), info (worth knowing). If nothing needs saying, return an empty comments list. \
A comment may carry a suggestion the author can apply in one click: startLine and endLine, the NEW lines it replaces (the comment's line among them, \
at most 50 lines, all numbered in the diff; never removed lines), and code, exactly what those lines should read with their indentation, \
without diff markers, line numbers or a Markdown fence (empty code deletes them). Suggest only when you know the exact replacement; otherwise suggestion is null. \
Answer with JSON matching the given schema: a one or two sentence summary of the change to this file, and the comments.";

/// The system prompt: the template's frame (or the default one), then the answer format.
#[must_use]
pub fn system_prompt(template: Option<&str>) -> String {
    let frame = template
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .unwrap_or(DEFAULT_FRAME);
    format!("{frame}\n\n{ANSWER_FORMAT}")
}

/// The rules' instructions, highest priority first.
#[must_use]
pub fn rules_section(rules: &[&ActiveRule]) -> String {
    if rules.is_empty() {
        return String::new();
    }
    let mut text = String::from("Project rules for this file (highest priority first):\n");
    for rule in rules {
        text.push_str(&format!(
            "- {}: {}\n",
            rule.rule_name,
            rule.instructions.trim()
        ));
    }
    text.push('\n');
    text
}

/// The user message: the MR's context and the diff with new-side line numbers, so the
/// model can name lines exactly.
#[must_use]
pub fn user_prompt(
    mr_title: &str,
    mr_description: Option<&str>,
    file_path: &str,
    change: ChangeType,
    rules: &[&ActiveRule],
    diff: &str,
) -> String {
    let description: String = mr_description.unwrap_or("").chars().take(2000).collect();
    let description = if description.trim().is_empty() {
        String::new()
    } else {
        format!("Description:\n{description}\n")
    };
    format!(
        "Merge request: {mr_title}\n{description}\nFile: {file_path} ({})\n\n{}Diff (NEW line numbers on the left; `-` lines no longer exist):\n{}",
        change.as_str(),
        rules_section(rules),
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
        let rule = ActiveRule {
            id: uuid::Uuid::nil(),
            rule_name: "SQL".into(),
            instructions: "Queries must be parameterised.".into(),
            file_type_patterns: vec![],
            file_path_patterns: vec![],
            priority: 5,
        };
        let prompt = user_prompt(
            "Fix",
            Some("why"),
            "src/x.rs",
            ChangeType::Modified,
            &[&rule],
            "@@ -1 +1 @@\n+x\n",
        );
        assert!(
            prompt.contains("File: src/x.rs (modified)")
                && prompt.contains("    1 +x")
                && prompt.contains("why")
        );
        assert!(prompt.contains("- SQL: Queries must be parameterised."));
        assert!(system_prompt(Some("Focus on security.")).starts_with("Focus on security."));
        assert!(
            system_prompt(None).starts_with("You are a meticulous")
                && system_prompt(None).contains("JSON")
        );
        assert!(
            system_prompt(Some("Focus on security.")).contains("startLine and endLine"),
            "every template is told how to suggest code"
        );
    }
}
