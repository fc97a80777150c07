//! The review engine on the in-memory adapters: what a round posts and records,
//! across rounds, with rules, ignore globs, failures and supersedes.

mod gate;
mod leases;
mod outcomes;
mod retries;
mod rounds;
mod timeouts;

use reviewd_domain::model::review::ReviewStatus;
use reviewd_domain::model::{ProjectSettingsChanges, TaskStatus};
use reviewd_domain::ports::{AiError, AttemptStart, RuleChanges};
use reviewd_domain::services::{EngineSettings, RunOutcome};
use reviewd_testkit::fakes::ai::ScriptedAi;
use reviewd_testkit::fakes::hosting::{MrFixture, Posted, ProjectFixture};
use reviewd_testkit::world::{World, added_lines, answer, is_summary, prompt_file, summary_answer};

fn mr_with_files(iid: i64, head: &str, files: &[&str]) -> MrFixture {
    files
        .iter()
        .fold(MrFixture::new(iid).head(head), |mr, path| {
            mr.file(
                path,
                &added_lines(&["let a = 1;", "let b = 2;", "let c = 3;"]),
            )
        })
}

#[tokio::test]
async fn a_round_posts_its_comments_and_summary_and_completes_the_review() {
    let world = World::new();
    world.ai.answer_with(|req| {
        if is_summary(req) {
            return Ok(summary_answer(req, "Adds the value a to the library."));
        }
        Ok(match prompt_file(req).as_str() {
            "src/lib.rs" => answer("Adds a.", &[(2, "error", "a is never used")]),
            _ => answer("Fine.", &[]),
        })
    });
    let (project, on_platform) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(
            7,
            "h1",
            &["src/lib.rs", "README.md"],
        )))
        .await;

    let task = world.enqueue(&project, 7, "h1").await;
    let RunOutcome::Completed { review_id } = world.run(&task).await else {
        panic!("the round did not complete");
    };

    let posted = world.platform.posted(&on_platform, 7);
    let inline: Vec<_> = posted
        .iter()
        .filter_map(|p| match p {
            Posted::Inline { comment, .. } => Some(comment.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(inline.len(), 1, "one line comment: {posted:?}");
    assert_eq!(
        (inline[0].file_path.as_str(), inline[0].line),
        ("src/lib.rs", 2)
    );
    assert!(inline[0].body.contains("a is never used"));
    let note = posted
        .iter()
        .find_map(|p| match p {
            Posted::Comment { body, .. } => Some(body.clone()),
            _ => None,
        })
        .expect("a summary note");
    assert!(
        note.contains("Adds the value a to the library.")
            && note.contains("| `src/lib.rs` | changed |")
            && note.contains("| `README.md` | changed |"),
        "the note is written for the MR, with a table of its files: {note}"
    );
    let review = world.stores.reviews.get(review_id).await.unwrap();
    assert_eq!(
        (review.status, review.comment_count),
        (ReviewStatus::Completed, 1)
    );
    assert_eq!(world.task(&task).await.status, TaskStatus::Completed);
    assert_eq!(
        world.observer.finished(),
        vec![(review_id, ReviewStatus::Completed)]
    );
    let calls = world
        .stores
        .review_queries
        .ai_logs(review_id, None, None, 50, 0)
        .await
        .unwrap();
    let per_file = calls
        .0
        .iter()
        .filter(|c| c.file_path.as_deref() != Some("(summary)"))
        .count();
    assert_eq!(
        (per_file, calls.1),
        (2, 3),
        "one AI call per file is logged, and the summary's"
    );
}
