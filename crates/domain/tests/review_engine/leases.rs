//! Who runs an attempt: a live heartbeat keeps it, a restarted worker resumes its own, a worker
//! taken over posts nothing.

use super::*;

#[tokio::test]
async fn another_worker_waits_while_the_heartbeat_is_live_then_takes_over() {
    let world = World::new();
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(9, "h1", &["a.rs"])))
        .await;
    let task = world.enqueue(&project, 9, "h1").await;
    let lease = EngineSettings::default().attempt_lease;
    // Another worker began the attempt and beats while it works.
    let other = world.stores.tasks.clone();
    other
        .begin_attempt(task.id, "worker-b", lease)
        .await
        .unwrap();
    for _ in 0..4 {
        world.clock.advance(lease * 3 / 4);
        assert!(other.renew_attempt(task.id, "worker-b").await.unwrap());
        assert!(
            matches!(world.run(&task).await, RunOutcome::Busy),
            "a live attempt is never robbed, however long it runs"
        );
    }
    // It went silent: one lease after its last beat the task is taken over.
    world
        .clock
        .advance(lease + std::time::Duration::from_secs(1));
    assert!(matches!(
        world.run(&task).await,
        RunOutcome::Completed { .. }
    ));
    assert!(
        !other.renew_attempt(task.id, "worker-b").await.unwrap(),
        "the silent worker learns the task is no longer its"
    );
}

#[tokio::test]
async fn a_restarted_worker_resumes_its_own_attempt_at_once() {
    let world = World::new();
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(11, "h1", &["a.rs"])))
        .await;
    let task = world.enqueue(&project, 11, "h1").await;
    // This worker's previous life began the attempt and died a moment later.
    let lease = EngineSettings::default().attempt_lease;
    world
        .stores
        .tasks
        .begin_attempt(task.id, reviewd_testkit::world::WORKER, lease)
        .await
        .unwrap();
    assert!(matches!(
        world.run(&task).await,
        RunOutcome::Completed { .. }
    ));
    let stored = world.task(&task).await;
    assert_eq!(stored.attempts, 2, "the resumed attempt counts");
    assert_eq!(
        world.platform.posts().len(),
        1,
        "one summary note, posted once"
    );
}

#[tokio::test]
async fn a_worker_taken_over_while_the_model_worked_posts_nothing_and_records_nothing() {
    let lease = EngineSettings::default().attempt_lease;
    // The model takes longer than the lease, and this worker beats no heartbeat
    // meanwhile (it is frozen): another worker takes the task over.
    let world = World::with(
        ScriptedAi::default().with_latency(lease + std::time::Duration::from_secs(1)),
        EngineSettings::default(),
    );
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(12, "h1", &["a.rs"])))
        .await;
    let task = world.enqueue(&project, 12, "h1").await;
    let frozen = tokio::spawn({
        let engine = world.engine.clone();
        async move { engine.run(task.id, "worker-frozen").await.unwrap() }
    });
    while world.clock.slept().is_empty() {
        tokio::task::yield_now().await;
    }
    let taken = world
        .stores
        .tasks
        .begin_attempt(task.id, reviewd_testkit::world::WORKER, lease)
        .await
        .unwrap();
    assert!(matches!(taken, AttemptStart::Started(_)), "{taken:?}");

    assert_eq!(frozen.await.unwrap(), RunOutcome::TakenOver);
    assert!(
        world.platform.posts().is_empty(),
        "nothing posted by the frozen worker"
    );
    let stored = world.task(&task).await;
    assert_eq!(
        stored.status,
        TaskStatus::Processing,
        "still the other worker's"
    );
    assert_eq!(
        stored.worker_id.as_deref(),
        Some(reviewd_testkit::world::WORKER)
    );
}
