//! The review workers' loop on the in-memory core, on a clock that follows tokio's
//! paused time: a long review keeps its lease and its message, a transient failure
//! gives the task back after the retry delay without ever leaving it without a
//! message, and a drain waits for the running review and takes nothing new.

use reviewd_domain::model::{ReviewTask, TaskStatus};
use reviewd_domain::ports::{Clock, PlatformError, TaskQueue};
use reviewd_domain::services::{EngineSettings, RunOutcome};
use reviewd_runtime::worker::{self, Services, WorkerSettings, Workers};
use reviewd_testkit::fakes::FakeClock;
use reviewd_testkit::fakes::ai::ScriptedAi;
use reviewd_testkit::fakes::hosting::{MrFixture, Op, ProjectFixture};
use reviewd_testkit::world::{World, added_lines, answer, is_summary, summary_answer};
use std::sync::Arc;
use std::time::Duration;

/// A task's lease: the heartbeat beats every quarter of it.
const LEASE: Duration = Duration::from_secs(40);
/// The model takes this long to answer: a review of one file (one call; its summary is
/// the note's) outlives three leases.
const MODEL_LATENCY: Duration = Duration::from_secs(150);
const RETRY_DELAY: Duration = Duration::from_secs(5);

fn world() -> World {
    let world = World::on_clock(
        ScriptedAi::default().with_latency(MODEL_LATENCY),
        // The engine's attempt lease is the workers' lease, as the server sets them.
        EngineSettings {
            attempt_lease: LEASE,
            ..EngineSettings::default()
        },
        Arc::new(FakeClock::on_tokio_time()),
    );
    world.ai.answer_with(|req| {
        Ok(if is_summary(req) {
            summary_answer(req, "Adds a.")
        } else {
            answer("Adds a.", &[(2, "warning", "a is never read")])
        })
    });
    world
}

async fn queued_review(world: &World, iid: i64) -> ReviewTask {
    let mr = MrFixture::new(iid)
        .head("h1")
        .file("src/lib.rs", &added_lines(&["let a = 1;", "let b = 2;"]));
    let (project, _) = world
        .project(ProjectFixture::new(&format!("g/app{iid}")).mr(mr))
        .await;
    world.enqueue(&project, iid, "h1").await
}

fn start(world: &World) -> Workers {
    worker::spawn(
        Services {
            engine: world.engine.clone(),
            tasks: world.tasks.clone(),
            runners: Arc::new(world.runner_service()),
            queue: world.queue.clone(),
            clock: world.clock.clone(),
        },
        WorkerSettings {
            concurrency: 1,
            review_timeout: Duration::from_secs(3600),
            reclaim_idle: LEASE,
            consumer: "worker-a".into(),
            retry_delay: RETRY_DELAY,
            orphan_age: Duration::from_secs(3600),
            runner_grace: Duration::from_secs(10),
        },
    )
}

/// Waits (on the paused clock) until the task has `status`, at most `limit`.
async fn wait_for(world: &World, task: &ReviewTask, status: TaskStatus, limit: Duration) {
    let step = Duration::from_secs(1);
    let mut waited = Duration::ZERO;
    while world.task(task).await.status != status {
        assert!(
            waited < limit,
            "{:?} after {limit:?}",
            world.task(task).await.status
        );
        tokio::time::sleep(step).await;
        waited += step;
    }
}

#[tokio::test(start_paused = true)]
async fn a_long_review_keeps_its_lease_and_its_message_and_is_not_taken_over() {
    let world = world();
    let task = queued_review(&world, 1).await;
    let started = world.clock.now();
    let _workers = start(&world);

    // Past one lease and a half into the review: a second worker finds nothing to
    // reclaim, and the attempt is still the first worker's.
    tokio::time::sleep(LEASE + LEASE / 2).await;
    assert_eq!(world.task(&task).await.status, TaskStatus::Processing);
    let reclaimed = world.queue.reclaim("worker-b", LEASE, 10).await.unwrap();
    assert!(
        reclaimed.is_empty(),
        "renewed messages stay put: {reclaimed:?}"
    );
    assert!(matches!(
        world.engine.run(task.id, "worker-b").await.unwrap(),
        RunOutcome::Busy
    ));

    wait_for(
        &world,
        &task,
        TaskStatus::Completed,
        Duration::from_secs(600),
    )
    .await;
    let ran = (world.clock.now() - started).to_std().unwrap();
    assert!(
        ran > 3 * LEASE,
        "the review outlived three leases ({ran:?})"
    );
    assert_eq!(world.platform.inline_comments().len(), 1, "posted once");
    // A beat every quarter lease renews the attempt; the message is renewed every
    // second beat.
    let beats = ran.as_secs() / (LEASE / 4).as_secs();
    let renewals = world.queue.renewals() as u64;
    assert!(
        renewals + 1 >= beats / 2 && renewals <= beats / 2 + 1,
        "{renewals} message renewals in {beats} beats"
    );
    assert!(world.queue.queued_tasks().is_empty(), "acknowledged");
}

#[tokio::test(start_paused = true)]
async fn a_transient_failure_gives_the_task_back_after_the_retry_delay() {
    let world = world();
    world.platform.fail_next(
        Op::GetMergeRequest,
        PlatformError::Unavailable("502 from the load balancer".into()),
    );
    let task = queued_review(&world, 2).await;
    let _workers = start(&world);

    // Given back: until the delay has passed the old message is still there, so the
    // task is never without one.
    tokio::time::sleep(RETRY_DELAY / 2).await;
    assert_eq!(world.task(&task).await.status, TaskStatus::Queued);
    assert_eq!(world.queue.queued_tasks(), vec![task.id]);
    // The queue is out as the delay ends: the task keeps its old message, and is still
    // reviewed (once) when the queue is back.
    world.queue.set_down(true);
    tokio::time::sleep(RETRY_DELAY).await;
    assert_eq!(
        world.queue.queued_tasks(),
        vec![task.id],
        "the old message is kept"
    );
    world.queue.set_down(false);

    wait_for(
        &world,
        &task,
        TaskStatus::Completed,
        Duration::from_secs(600),
    )
    .await;
    assert!(
        world.clock.slept().contains(&RETRY_DELAY),
        "waited the retry delay: {:?}",
        world.clock.slept()
    );
    assert_eq!(world.platform.inline_comments().len(), 1);
    assert!(
        world.queue.queued_tasks().is_empty(),
        "one message, acknowledged"
    );
}

#[tokio::test(start_paused = true)]
async fn a_drain_waits_for_the_running_review_and_takes_nothing_new() {
    let world = world();
    let running = queued_review(&world, 3).await;
    let workers = start(&world);
    tokio::time::sleep(Duration::from_secs(10)).await;
    assert_eq!(world.task(&running).await.status, TaskStatus::Processing);

    // Too short for the review: the drain says so, and the message stays pending for
    // this consumer's next start.
    assert!(!workers.drain(Duration::from_secs(20)).await);
    assert!(world.queue.queued_tasks().contains(&running.id));

    let later = queued_review(&world, 4).await;
    assert!(workers.drain(Duration::from_secs(600)).await);
    assert_eq!(world.task(&running).await.status, TaskStatus::Completed);
    tokio::time::sleep(Duration::from_secs(300)).await;
    assert_eq!(
        world.task(&later).await.status,
        TaskStatus::Queued,
        "a stopping worker takes no new task"
    );
    assert_eq!(world.queue.queued_tasks(), vec![later.id]);
}
