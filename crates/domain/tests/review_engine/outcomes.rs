//! How a round ends besides completing: a comment off the diff, an AI outage, a newer head.

use super::*;

#[tokio::test]
async fn a_comment_on_a_line_outside_the_diff_is_not_posted_there() {
    let world = World::new();
    // Line 40 is not in the diff of the file (lines 1-4).
    world.ai.answer_with(|_| {
        Ok(answer(
            "x",
            &[(40, "error", "far away"), (3, "info", "close")],
        ))
    });
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(5, "h1", &["a.rs"])))
        .await;
    let task = world.enqueue(&project, 5, "h1").await;
    assert!(matches!(
        world.run(&task).await,
        RunOutcome::Completed { .. }
    ));
    let lines: Vec<_> = world
        .platform
        .inline_comments()
        .iter()
        .map(|c| c.line)
        .collect();
    assert!(
        !lines.contains(&40),
        "nothing posted on a line the diff lacks: {lines:?}"
    );
    assert!(lines.contains(&3));
}

#[tokio::test]
async fn an_ai_outage_is_retried_then_fails_the_review_after_its_attempts() {
    let world = World::new();
    world
        .ai
        .set_outage(Some(AiError::Unavailable("503".into())));
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(6, "h1", &["a.rs"])))
        .await;
    let task = world.enqueue(&project, 6, "h1").await;

    let mut outcomes = Vec::new();
    for _ in 0..task.max_attempts {
        outcomes.push(world.run(&task).await);
    }
    assert!(
        matches!(outcomes[0], RunOutcome::Retry { .. }),
        "a provider outage is transient: {outcomes:?}"
    );
    assert!(
        matches!(outcomes.last(), Some(RunOutcome::Failed { .. })),
        "the last attempt gives up: {outcomes:?}"
    );
    assert_eq!(world.task(&task).await.status, TaskStatus::Failed);
    assert!(
        matches!(world.run(&task).await, RunOutcome::Skipped),
        "a failed task is not run again"
    );
    let finished = world.observer.finished();
    assert_eq!(
        finished.len(),
        1,
        "observers hear of the failure once: {finished:?}"
    );
    assert_eq!(finished[0].1, ReviewStatus::Failed);
}

#[tokio::test]
async fn a_newer_head_supersedes_a_queued_task_which_is_then_skipped() {
    let world = World::new();
    let (project, on_platform) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(8, "h1", &["a.rs"])))
        .await;
    let old = world.enqueue(&project, 8, "h1").await;
    world
        .platform
        .put_merge_request(&on_platform, mr_with_files(8, "h2", &["a.rs"]));
    let new = world.enqueue(&project, 8, "h2").await;

    assert_eq!(world.task(&old).await.status, TaskStatus::Superseded);
    assert!(matches!(world.run(&old).await, RunOutcome::Skipped));
    assert!(
        world.ai.requests().is_empty(),
        "a superseded task costs no AI call"
    );
    assert!(matches!(
        world.run(&new).await,
        RunOutcome::Completed { .. }
    ));
}
