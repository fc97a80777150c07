//! What came out of a scenario, per MR: outcomes from the tasks API, comments from
//! what the fake GitLab accepted, and the webhook answers. One table row each.

use crate::outside::{FILES, Outside};
use reviewd_testkit::fakes::hosting::Posted;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

const COMMENT_MARKER: &str = "<!-- reviewd:comment:";

#[derive(Debug, Clone, Default)]
pub struct Row {
    pub name: String,
    pub mrs: i64,
    /// Tasks completed (one per MR when nothing ran twice).
    pub completed: usize,
    pub failed: usize,
    /// MRs with neither a completed nor a failed task.
    pub no_outcome: usize,
    /// Copies beyond the first of a line comment (by its marker) or of a summary.
    pub duplicates: usize,
    /// Line comments and summaries a completed MR does not have.
    pub missing: usize,
    /// Tasks still queued or processing at the deadline.
    pub stuck: usize,
    /// 5xx answers to webhooks, other than 503s while a store was down.
    pub unexpected_5xx: usize,
    /// MRs whose merge gate does not end on the verdict: a review concluded (its
    /// summary posted) and the last `reviewd` status on the head is not `success`
    /// (the fake model finds warnings only), or is still pending or running.
    pub gate_wrong: usize,
    /// From the fault's end to the last review done.
    pub recovery: Option<Duration>,
}

/// Rows of the scenarios run so far, printed as a table at the end.
pub static TABLE: Mutex<Vec<String>> = Mutex::new(Vec::new());

pub const HEADER: &str = "| scenario | MRs | completed | failed | no outcome | duplicates | missing | stuck | unexpected 5xx | gate wrong | recovery |\n|---|---|---|---|---|---|---|---|---|---|---|";

impl Row {
    pub fn line(&self) -> String {
        let recovery = self
            .recovery
            .map_or_else(|| "-".to_owned(), |d| format!("{:.1} s", d.as_secs_f64()));
        format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {recovery} |",
            self.name,
            self.mrs,
            self.completed,
            self.failed,
            self.no_outcome,
            self.duplicates,
            self.missing,
            self.stuck,
            self.unexpected_5xx,
            self.gate_wrong
        )
    }

    /// What breaks the promise: nothing lost, nothing twice, nothing failed.
    pub fn violations(&self) -> Vec<String> {
        let mut found = Vec::new();
        let expected_completed = usize::try_from(self.mrs).unwrap_or_default();
        let checks = [
            (
                self.completed != expected_completed,
                format!("{} tasks completed for {} MRs", self.completed, self.mrs),
            ),
            (self.failed > 0, format!("{} tasks failed", self.failed)),
            (
                self.no_outcome > 0,
                format!("{} MRs without an outcome", self.no_outcome),
            ),
            (
                self.duplicates > 0,
                format!("{} comments posted more than once", self.duplicates),
            ),
            (
                self.missing > 0,
                format!("{} comments missing", self.missing),
            ),
            (self.stuck > 0, format!("{} tasks stuck", self.stuck)),
            (
                self.unexpected_5xx > 0,
                format!("{} unexpected 5xx answers", self.unexpected_5xx),
            ),
            (
                self.gate_wrong > 0,
                format!(
                    "{} MRs whose merge gate is not the verdict",
                    self.gate_wrong
                ),
            ),
        ];
        for (broken, what) in checks {
            if broken {
                found.push(what);
            }
        }
        found
    }
}

/// The statuses of a finished task.
pub fn is_finished(status: &str) -> bool {
    matches!(status, "completed" | "failed" | "superseded" | "cancelled")
}

/// Counts outcomes from the `tasks` (as the API lists them).
pub fn outcomes(row: &mut Row, tasks: &[Value]) {
    let status = |t: &Value| t["status"].as_str().unwrap_or_default().to_owned();
    row.completed = tasks.iter().filter(|t| status(t) == "completed").count();
    row.failed = tasks.iter().filter(|t| status(t) == "failed").count();
    row.stuck = tasks.iter().filter(|t| !is_finished(&status(t))).count();
    row.no_outcome = (1..=row.mrs)
        .filter(|iid| {
            !tasks.iter().any(|t| {
                t["mrIid"].as_i64() == Some(*iid)
                    && matches!(status(t).as_str(), "completed" | "failed")
            })
        })
        .count();
}

/// The key a line comment is recognised by: its marker, or (from a server that
/// writes none) its place and words.
fn comment_key(file: &str, line: u32, body: &str) -> String {
    body.find(COMMENT_MARKER).map_or_else(
        || format!("{file}:{line}:{body}"),
        |at| {
            body[at..]
                .split(" -->")
                .next()
                .unwrap_or_default()
                .to_owned()
        },
    )
}

/// Counts duplicated and missing comments on every MR.
pub fn comments(row: &mut Row, outside: &Outside) {
    for iid in 1..=row.mrs {
        let mut lines: HashMap<String, usize> = HashMap::new();
        let mut summaries = 0;
        for posted in outside.posted(iid) {
            match posted {
                Posted::Inline { comment, .. } => {
                    let key = comment_key(&comment.file_path, comment.line, &comment.body);
                    *lines.entry(key).or_default() += 1;
                }
                // Every general comment reviewd posts here is a summary (edits are
                // `Posted::Edit`): a second one is a duplicate, marker or not.
                Posted::Comment { .. } => summaries += 1,
                Posted::Edit { .. }
                | Posted::Assign { .. }
                | Posted::Reply { .. }
                | Posted::Description { .. } => {}
            }
        }
        row.duplicates += lines.values().map(|n| n - 1).sum::<usize>() + summaries.max(1) - 1;
        row.missing += FILES.saturating_sub(lines.len()) + usize::from(summaries == 0);
    }
}

/// Counts MRs whose last `reviewd` status is not the verdict: with warnings only,
/// `success` once the review concluded (its summary is posted); never left
/// `pending` or `running` over it.
pub fn gates(row: &mut Row, outside: &Outside) {
    for iid in 1..=row.mrs {
        let concluded = outside
            .posted(iid)
            .iter()
            .any(|p| matches!(p, Posted::Comment { .. }));
        let statuses = outside.gitlab.statuses(outside.head(iid));
        let last = statuses
            .last()
            .map(|s| s["state"].as_str().unwrap_or_default().to_owned());
        let wrong = match (concluded, last.as_deref()) {
            (true, Some("success")) | (false, None) => false,
            (true, _) => true,
            // No review concluded: a status may stand only while one is due.
            (false, Some(state)) => state == "success" || state == "failed",
        };
        if wrong {
            println!(
                "chaos: MR {iid}: gate {last:?} after {} status(es), concluded: {concluded}",
                statuses.len()
            );
        }
        row.gate_wrong += usize::from(wrong);
    }
}

/// 5xx answers outside the outage windows (a 503 in one is the documented answer).
pub fn unexpected_5xx(
    answers: &[(std::time::Instant, u16)],
    outages: &[(std::time::Instant, std::time::Instant)],
) -> usize {
    answers
        .iter()
        .filter(|(at, status)| {
            *status >= 500
                && !(*status == 503 && outages.iter().any(|(from, to)| from <= at && at <= to))
        })
        .count()
}
