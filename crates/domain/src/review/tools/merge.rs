//! Which findings are posted, and how they meet the model's comments: one comment
//! per line and rule, naming the tool.

use super::evidence::{Verdict, VerdictKind, id};
use super::{Outcome, PostMode, ToolEvidence, ToolFinding};
use crate::model::grade::Severity;
use crate::review::output::{ProposedComment, defuse};

/// The file's findings (in their prompt order) judged by the model's `verdicts`
/// under `mode`: the comments to post besides the model's, with `model` updated
/// where a finding is folded into its comment, and what became of each finding.
#[must_use]
pub fn merge(
    findings: &[ToolFinding],
    verdicts: &[Verdict],
    model: &mut [ProposedComment],
    mode: PostMode,
) -> (Vec<ProposedComment>, Vec<ToolEvidence>) {
    let mut posted: Vec<ProposedComment> = Vec::new();
    let mut evidence = Vec::with_capacity(findings.len());
    for (i, f) in findings.iter().enumerate() {
        let finding_id = id(i);
        let verdict = verdicts.iter().find(|v| v.id == finding_id);
        let reason = verdict
            .map(|v| {
                v.reason
                    .trim()
                    .chars()
                    .take(super::MAX_MESSAGE_CHARS)
                    .collect::<String>()
            })
            .filter(|r| !r.is_empty());
        let post = f.is_secret()
            || mode == PostMode::All
            || verdict.is_some_and(|v| v.verdict == VerdictKind::Confirmed);
        let outcome = if !post {
            match verdict {
                Some(v) if v.verdict == VerdictKind::Dismissed => Outcome::Dismissed,
                _ => Outcome::Unconfirmed,
            }
        } else if let Some(own) = model
            .iter_mut()
            .find(|c| c.line == f.line && names(&c.message, f, &finding_id))
        {
            own.message = format!("{}\n\n(also reported by {})", own.message, label(f));
            own.severity = own.severity.max(f.severity);
            Outcome::Merged
        } else if let Some(same) = posted
            .iter_mut()
            .find(|c| c.line == f.line && c.message.contains(&format!("`{}`", f.rule)))
        {
            // Two tools on one rule and line (ruff on a runner and ruff's SARIF
            // from CI): one comment.
            same.severity = same.severity.max(f.severity);
            Outcome::Merged
        } else {
            posted.push(comment(f));
            Outcome::Posted
        };
        evidence.push(ToolEvidence {
            tool: f.tool.clone(),
            rule: f.rule.clone(),
            line: f.line,
            severity: f.severity,
            message: f.message.clone(),
            outcome,
            reason: reason.map(|r| defuse(&r)),
        });
    }
    (posted, evidence)
}

/// `ruff` `F401`, as a comment names it.
fn label(f: &ToolFinding) -> String {
    format!("**{}** `{}`", f.tool, f.rule)
}

/// Whether the model's comment is about the finding: it names its id, or its
/// rule when the rule's id cannot be an ordinary word (`F401`, `SC2086`,
/// `no-eval`; not a fallback such as `result`).
fn names(message: &str, f: &ToolFinding, finding_id: &str) -> bool {
    let words: Vec<&str> = message
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_' || c == '.' || c == ':'))
        .collect();
    let distinctive = f.rule.len() >= 3
        && f.rule
            .chars()
            .any(|c| c.is_ascii_digit() || matches!(c, '-' | '_' | '.' | ':' | '/'));
    let rule = distinctive.then_some(f.rule.as_str());
    [rule, Some(finding_id)]
        .into_iter()
        .flatten()
        .any(|name| words.iter().any(|w| w.eq_ignore_ascii_case(name)))
}

/// The comment a finding is posted as. Its text is the finding's alone (the
/// model's reason, which varies between calls, stays on the review page), so the
/// same finding in a later round or a late re-review is recognised as posted.
fn comment(f: &ToolFinding) -> ProposedComment {
    let message = format!("{}: {}", label(f), f.message);
    ProposedComment {
        line: f.line,
        severity: if f.is_secret() {
            Severity::Error
        } else {
            f.severity
        },
        message: defuse(&message),
        suggestion: None,
    }
}
