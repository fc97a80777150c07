//! `reviewd eval`: the review engine run on a set of cases (base and head trees,
//! the MR's title and description, golden findings with their evidence) on the
//! in-memory adapters, against one or two AI configurations, scored: findings
//! matched to the golden ones, precision, recall, F1, the context's recall,
//! tokens, cost and time. No platform, database or Redis is needed.
//!
//! The case format and the command are documented in `docs/eval.md`; the
//! shipped cases are in `tests/eval/`.

pub mod bundle;
pub mod case;
pub mod diff;
pub mod export;
pub mod judge;
pub mod recording;
pub mod report;
pub mod run;
pub mod score;
pub mod scripted;
pub mod source;
pub mod tree;

pub use case::{Case, load, load_all};
pub use judge::Judge;
pub use report::Report;
pub use run::{Model, RunSettings, Target, run_case};

use reviewd_domain::context::ContextMode;

/// Runs every case against `target`, one case after another (a case's files
/// concurrently), and reports.
pub async fn run(
    cases: &[Case],
    target: &Target,
    settings: &RunSettings,
    judge: Option<&Judge>,
) -> Report {
    let mut results = Vec::with_capacity(cases.len());
    for case in cases {
        results.push(run_case(case, target, settings, judge).await);
    }
    Report {
        target: target.name.clone(),
        context: match settings.context {
            ContextMode::Full => "full",
            ContextMode::None => "none",
        },
        cases: results,
    }
}
