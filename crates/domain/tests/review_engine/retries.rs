//! Retried rounds never post twice: what was posted before the cut is found on the MR.

use super::*;

#[tokio::test]
async fn a_round_retried_after_posting_was_cut_off_posts_nothing_twice() {
    let world = World::new();
    world.ai.answer_with(|_| {
        Ok(answer(
            "Three remarks.",
            &[
                (2, "warning", "first remark"),
                (3, "error", "second remark"),
                (4, "info", "third remark"),
            ],
        ))
    });
    let (project, on_platform) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(14, "h1", &["a.rs"])))
        .await;
    let task = world.enqueue(&project, 14, "h1").await;
    // The platform goes down after two of the three discussions are posted.
    world.platform.cut_next_inline(
        2,
        reviewd_domain::ports::PlatformError::Unavailable("502 from the load balancer".into()),
    );
    assert!(matches!(world.run(&task).await, RunOutcome::Retry { .. }));
    assert_eq!(world.platform.inline_comments().len(), 2);

    let RunOutcome::Completed { review_id } = world.run(&task).await else {
        panic!("the retried round completes");
    };
    let inline = world.platform.inline_comments();
    let mut remarks: Vec<&str> = inline
        .iter()
        .map(|c| c.body.split("**: ").nth(1).unwrap().lines().next().unwrap())
        .collect();
    remarks.sort_unstable();
    assert_eq!(
        remarks,
        ["first remark", "second remark", "third remark"],
        "each remark posted once: {inline:?}"
    );
    let summaries = world
        .platform
        .posted(&on_platform, 14)
        .into_iter()
        .filter(|p| matches!(p, Posted::Comment { .. }))
        .count();
    assert_eq!(summaries, 1, "one summary note");
    let review = world.stores.reviews.get(review_id).await.unwrap();
    assert_eq!(review.comment_count, 3);
}

#[tokio::test]
async fn a_retry_that_cannot_read_the_mr_comments_waits_rather_than_post_twice() {
    use reviewd_domain::ports::PlatformError;
    use reviewd_testkit::fakes::hosting::Op;
    let world = World::new();
    world.ai.answer_with(|_| {
        Ok(answer(
            "Two remarks.",
            &[
                (2, "warning", "first remark"),
                (3, "error", "second remark"),
            ],
        ))
    });
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(16, "h1", &["a.rs"])))
        .await;
    let task = world.enqueue(&project, 16, "h1").await;
    world
        .platform
        .cut_next_inline(1, PlatformError::Unavailable("502".into()));
    assert!(matches!(world.run(&task).await, RunOutcome::Retry { .. }));
    // The platform cannot list what is already there: nothing is posted blind.
    world.platform.fail_next(
        Op::ListComments,
        PlatformError::Unavailable("503 on the notes".into()),
    );
    assert!(matches!(world.run(&task).await, RunOutcome::Retry { .. }));
    assert_eq!(world.platform.inline_comments().len(), 1);

    assert!(matches!(
        world.run(&task).await,
        RunOutcome::Completed { .. }
    ));
    assert_eq!(
        world.platform.inline_comments().len(),
        2,
        "each remark once"
    );
}
