//! The shipped cases (`tests/eval/`) with the scripted model, which reports a
//! golden finding only when all of its evidence reached the prompt: the
//! context's recall is asserted here, in CI, and what the context buys is shown
//! by the same cases reviewed from their diff alone.
#![expect(
    clippy::expect_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reviewd_domain::context::ContextMode;
use reviewd_eval::{Model, RunSettings, Target};
use std::collections::BTreeSet;
use std::path::PathBuf;

fn cases() -> Vec<reviewd_eval::Case> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/eval");
    reviewd_eval::load_all(&root).expect("the shipped cases load")
}

fn scripted() -> Target {
    Target {
        name: "scripted".into(),
        model: Model::Scripted,
    }
}

#[test]
fn the_shipped_cases_are_enough_and_varied() {
    let cases = cases();
    assert!(cases.len() >= 24, "{} cases", cases.len());
    let languages: BTreeSet<String> = cases
        .iter()
        .filter_map(|c| c.meta.language.clone())
        .collect();
    assert!(languages.len() >= 5, "{languages:?}");
    assert!(cases.iter().all(|c| !c.meta.findings.is_empty()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_context_carries_the_evidence_of_at_least_nine_findings_in_ten() {
    let cases = cases();
    let full = reviewd_eval::run(&cases, &scripted(), &RunSettings::default(), None).await;
    print!("{}", full.table());
    let totals = full.totals();
    let recall = totals.context_recall.unwrap();
    assert!(recall >= 0.9, "context recall {recall:.2}");
    assert_eq!(
        totals.recall, totals.context_recall,
        "the scripted model finds exactly what the context carried"
    );
    assert_eq!(totals.precision, Some(1.0), "and reports nothing else");

    let bare = reviewd_eval::run(
        &cases,
        &scripted(),
        &RunSettings {
            context: ContextMode::None,
            ..RunSettings::default()
        },
        None,
    )
    .await;
    print!("{}", bare.table());
    let without = bare.totals().context_recall.unwrap();
    assert!(
        without <= 0.25,
        "most shipped cases have their evidence outside the hunk: {without:.2} found from the diff alone"
    );
}
