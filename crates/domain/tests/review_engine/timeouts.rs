//! Reviews past their timeout: closed as failed with the reason, unless taken over meanwhile.

use super::*;

#[tokio::test]
async fn a_timed_out_review_is_closed_as_failed_with_the_reason() {
    let world = World::new();
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(10, "h1", &["a.rs"])))
        .await;
    let task = world.enqueue(&project, 10, "h1").await;
    assert!(matches!(
        world.run(&task).await,
        RunOutcome::Completed { .. }
    ));
    let again = world.enqueue(&project, 10, "h2").await;
    let lease = EngineSettings::default().attempt_lease;
    world
        .stores
        .tasks
        .begin_attempt(again.id, reviewd_testkit::world::WORKER, lease)
        .await
        .unwrap();
    assert!(
        world
            .engine
            .time_out(
                again.id,
                reviewd_testkit::world::WORKER,
                std::time::Duration::from_secs(600)
            )
            .await
            .unwrap()
    );
    let stored = world.task(&again).await;
    assert_eq!(stored.status, TaskStatus::Failed);
    assert!(stored.error_message.unwrap_or_default().contains("600 s"));
}

#[tokio::test]
async fn a_frozen_worker_timing_out_after_a_takeover_fails_nothing() {
    let world = World::new();
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(13, "h1", &["a.rs"])))
        .await;
    let task = world.enqueue(&project, 13, "h1").await;
    let lease = EngineSettings::default().attempt_lease;
    // Frozen (SIGSTOP) right after it began; another worker takes over and finishes.
    world
        .stores
        .tasks
        .begin_attempt(task.id, "worker-frozen", lease)
        .await
        .unwrap();
    world
        .clock
        .advance(lease + std::time::Duration::from_secs(1));
    let RunOutcome::Completed { review_id } = world.run(&task).await else {
        panic!("the other worker completes the review");
    };
    // Resumed, the frozen worker's own timeout fires.
    let failed = world
        .engine
        .time_out(
            task.id,
            "worker-frozen",
            std::time::Duration::from_secs(600),
        )
        .await
        .unwrap();
    assert!(!failed, "not its attempt any more");
    assert_eq!(world.task(&task).await.status, TaskStatus::Completed);
    let review = world.stores.reviews.get(review_id).await.unwrap();
    assert_eq!(
        review.status,
        ReviewStatus::Completed,
        "the review stays completed"
    );
}
