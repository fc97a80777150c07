//! Committable suggestions through the engine on the in-memory adapters: one that
//! fits the diff is posted and stored with its comment, one that does not is dropped
//! from it (the comment still posted), from the server's own model and from a
//! runner's result alike.

use reviewd_domain::model::diff::{InlineComment, Suggestion};
use reviewd_domain::model::runner::{RunnerComment, RunnerResult};
use reviewd_domain::model::{ReviewTask, TaskStatus};
use reviewd_domain::ports::ProjectRef;
use reviewd_domain::review::rating::Severity;
use reviewd_domain::services::RunOutcome;
use reviewd_testkit::fakes::hosting::{MrFixture, Posted, ProjectFixture};
use reviewd_testkit::world::{World, added_lines, runner_registration, runner_success};
use serde_json::json;
use uuid::Uuid;

/// New side of `a.rs`: line 1 context, lines 2 to 4 added.
fn diff() -> String {
    added_lines(&["let a = 1;", "let b = 2;", "let c = 3;"])
}

fn suggestion(start_line: u32, end_line: u32, code: &str) -> Suggestion {
    Suggestion {
        start_line,
        end_line,
        code: code.into(),
    }
}

async fn world_with_mr() -> (World, ReviewTask, ProjectRef) {
    let world = World::new();
    let (project, on_platform) = world
        .project(
            ProjectFixture::new("g/app").mr(MrFixture::new(7).head("h1").file("a.rs", &diff())),
        )
        .await;
    let task = world.enqueue(&project, 7, "h1").await;
    (world, task, on_platform)
}

fn inline(world: &World, on_platform: &ProjectRef) -> Vec<InlineComment> {
    world
        .platform
        .posted(on_platform, 7)
        .into_iter()
        .filter_map(|p| match p {
            Posted::Inline { comment, .. } => Some(comment),
            _ => None,
        })
        .collect()
}

/// The posted comment whose body holds `words`, as (line, suggestion).
fn posted_with(comments: &[InlineComment], words: &str) -> (u32, Option<Suggestion>) {
    let c = comments
        .iter()
        .find(|c| c.body.contains(words))
        .unwrap_or_else(|| panic!("no comment saying {words:?}: {comments:?}"));
    (c.line, c.suggestion.clone())
}

#[tokio::test]
async fn a_fitting_suggestion_is_posted_and_stored_and_a_misplaced_one_stripped() {
    let (world, task, on_platform) = world_with_mr().await;
    world.ai.answer_with(|_| {
        Ok(json!({ "summary": "Adds a, b and c.", "comments": [
            { "line": 2, "severity": "warning", "message": "Name the constants.",
              "suggestion": { "startLine": 2, "endLine": 3, "code": "let alpha = 1;\nlet beta = 2;" } },
            { "line": 4, "severity": "info", "message": "Runs past the hunk.",
              "suggestion": { "startLine": 4, "endLine": 6, "code": "let c = 3;\n\n" } },
            { "line": 1, "severity": "info", "message": "On a context line.",
              "suggestion": { "startLine": 1, "endLine": 1, "code": "fresh context" } },
            { "line": 3, "severity": "error", "message": "No suggestion at all.", "suggestion": null }
        ]})
        .to_string())
    });

    let RunOutcome::Completed { review_id } = world.run(&task).await else {
        panic!("the round did not complete");
    };

    let posted = inline(&world, &on_platform);
    assert_eq!(posted.len(), 4, "every comment is posted: {posted:?}");
    assert_eq!(
        posted_with(&posted, "Name the constants."),
        (2, Some(suggestion(2, 3, "let alpha = 1;\nlet beta = 2;")))
    );
    assert_eq!(
        posted_with(&posted, "Runs past the hunk."),
        (4, None),
        "lines 5 and 6 are not in the diff: the comment goes without the suggestion"
    );
    assert_eq!(
        posted_with(&posted, "On a context line."),
        (2, None),
        "moved to the nearest added line, where the suggestion would replace the wrong code"
    );
    assert_eq!(posted_with(&posted, "No suggestion at all."), (3, None));

    let (stored, _) = world
        .stores
        .review_queries
        .comments(review_id, None, None, 10, 0)
        .await
        .unwrap();
    let stored_with = |words: &str| {
        stored
            .iter()
            .find(|c| c.message.contains(words))
            .and_then(|c| c.suggestion.clone())
    };
    assert_eq!(
        stored_with("Name the constants."),
        Some(suggestion(2, 3, "let alpha = 1;\nlet beta = 2;"))
    );
    assert_eq!(stored_with("Runs past the hunk."), None);
    assert_eq!(stored_with("On a context line."), None);
}

fn runner_comment(line: i64, message: &str, suggestion: Option<Suggestion>) -> RunnerComment {
    RunnerComment {
        line,
        severity: Severity::Warning,
        message: message.into(),
        suggestion,
    }
}

/// The shared successful result, with `comments` on `a.rs`, rated B.
fn runner_result(comments: Vec<RunnerComment>) -> RunnerResult {
    let mut result = runner_success("r1");
    result.total_comments = comments.len() as u64;
    result.files[0].comments = comments;
    result.files[0].summary = Some("Adds a, b and c.".into());
    result.rating = Some("B".into());
    result
}

#[tokio::test]
async fn a_runners_suggestions_are_checked_and_fitted_like_the_models() {
    let (world, task, on_platform) = world_with_mr().await;
    let service = world.runner_service();
    let key = Uuid::new_v4();
    service
        .register(&runner_registration("r1", key, 1))
        .await
        .unwrap();
    let claimed = service.claim(key, "r1", 1).await.unwrap();
    assert_eq!(claimed.len(), 1);

    let result = runner_result(vec![
        runner_comment(
            4,
            "Make c a constant.",
            Some(suggestion(4, 4, "const C: i32 = 3;")),
        ),
        runner_comment(3, "Off the diff.", Some(suggestion(3, 9, "let b = 2;"))),
        // What the server makes of a negative line from the runner API: 0.
        runner_comment(2, "Not lines.", Some(suggestion(0, 2, "x"))),
        runner_comment(2, "Backwards.", Some(suggestion(2, 1, "x"))),
    ]);
    service
        .submit_result(key, claimed[0].id, &result)
        .await
        .unwrap();
    assert_eq!(world.task(&task).await.status, TaskStatus::Completed);

    let posted = inline(&world, &on_platform);
    assert_eq!(posted.len(), 4, "{posted:?}");
    assert_eq!(
        posted_with(&posted, "Make c a constant."),
        (4, Some(suggestion(4, 4, "const C: i32 = 3;")))
    );
    for words in ["Off the diff.", "Not lines.", "Backwards."] {
        assert_eq!(posted_with(&posted, words).1, None, "{words}");
    }
}
