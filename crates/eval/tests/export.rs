//! A team's judged review rounds exported as eval cases from a real git clone:
//! accepted comments become findings, rejected ones unwanted, a comment on a line
//! the round's diff does not add is left out, and the case loads and runs.
#![expect(
    clippy::expect_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reviewd_domain::model::grade::Severity;
use reviewd_domain::model::review_views::{JudgedComment, JudgedRound};
use reviewd_domain::review::feedback::TrackingStatus;
use std::path::Path;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "dev")
        .env("GIT_AUTHOR_EMAIL", "dev@example.com")
        .env("GIT_COMMITTER_NAME", "dev")
        .env("GIT_COMMITTER_EMAIL", "dev@example.com")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn comment(line: i32, verdict: TrackingStatus, message: &str) -> JudgedComment {
    JudgedComment {
        file_path: "app/orders.py".into(),
        line,
        severity: Severity::Error,
        message: message.into(),
        verdict,
    }
}

#[tokio::test]
async fn judged_rounds_become_cases_that_load_and_run() {
    let root = std::env::temp_dir().join(format!("reviewd-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let repo = root.join("repo");
    std::fs::create_dir_all(repo.join("app")).expect("a scratch directory");
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    std::fs::write(
        repo.join("app/orders.py"),
        "def total(order):\n    return order.sum\n",
    )
    .expect("write");
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "base"]);
    let base = git(&repo, &["rev-parse", "HEAD"]);
    std::fs::write(
        repo.join("app/orders.py"),
        "def total(order):\n    print(order.token)\n    return order.sum / 0\n",
    )
    .expect("write");
    git(&repo, &["commit", "--quiet", "-am", "head"]);
    let head = git(&repo, &["rev-parse", "HEAD"]);

    let round = JudgedRound {
        review_id: reviewd_domain::model::ReviewId::nil(),
        mr_iid: 7,
        mr_title: "Totals: \"divide\" # by zero".into(),
        base_sha: Some(base),
        head_sha: head.clone(),
        round_number: 1,
        comments: vec![
            comment(3, TrackingStatus::Accepted, "Division by zero."),
            comment(
                2,
                TrackingStatus::Rejected,
                "Use the logger: \"print\" is fine here, said the author.",
            ),
            comment(
                1,
                TrackingStatus::Implemented,
                "On a line the diff does not add.",
            ),
        ],
    };
    let missing = JudgedRound {
        head_sha: "0".repeat(40),
        ..round.clone()
    };
    let out = root.join("cases");
    let done = reviewd_eval::export::export(&[round, missing], &repo, &out).expect("exported");
    assert_eq!(done.cases.len(), 1, "{:?}", done.skipped);
    assert_eq!(done.dropped_comments, 1);
    assert!(
        done.skipped[0].contains("is not in the clone"),
        "{:?}",
        done.skipped
    );

    let case = reviewd_eval::load(&done.cases[0]).expect("the case loads");
    assert_eq!(case.meta.title, "Totals: \"divide\" # by zero");
    assert_eq!(case.meta.findings.len(), 1);
    assert_eq!(case.meta.findings[0].line, 3);
    assert_eq!(case.meta.unwanted.len(), 1);
    assert!(case.meta.unwanted[0].message.contains("\"print\" is fine"));

    // The scripted model finds what a case's evidence allows: with none listed,
    // every accepted finding on the lines it is shown.
    let target = reviewd_eval::Target {
        name: "scripted".into(),
        model: reviewd_eval::Model::Scripted,
    };
    let report = reviewd_eval::run(
        &[case],
        &target,
        &reviewd_eval::RunSettings::default(),
        None,
    )
    .await;
    assert_eq!(report.totals().found, 1);
    let _ = std::fs::remove_dir_all(&root);
}
