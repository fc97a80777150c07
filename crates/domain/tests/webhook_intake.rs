//! Webhook intake and the task queue on the in-memory adapters: which events queue
//! a review, redeliveries processed once, and a queue outage never acknowledged as
//! queued.

use reviewd_domain::model::{
    CommentEvent, MergeRequestEvent, MrAction, PlatformType, Project, ProjectSettingsChanges,
    TaskStatus, WebhookEvent,
};
use reviewd_domain::ports::TaskQueue;
use reviewd_domain::services::{DeliveryRef, IntakeOutcome, WebhookIntake};
use reviewd_testkit::fakes::hosting::{MrFixture, ProjectFixture};
use reviewd_testkit::world::World;
use std::time::Duration;

fn intake(world: &World) -> WebhookIntake {
    WebhookIntake::new(
        world.stores.projects.clone(),
        world.stores.settings.clone(),
        world.tasks.clone(),
        world.queue.clone(),
    )
}

fn opened(project: &Project, iid: i64, head: &str) -> WebhookEvent {
    WebhookEvent::MergeRequest(MergeRequestEvent {
        platform_type: PlatformType::Gitlab,
        platform_project_id: project.platform_project_id.clone(),
        iid,
        action: MrAction::Opened,
        head_sha: Some(head.into()),
        author_id: Some("21".into()),
    })
}

async fn setup() -> (World, Project) {
    let world = World::new();
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(MrFixture::new(1)))
        .await;
    (world, project)
}

#[tokio::test]
async fn an_opened_mr_is_queued_once_however_often_it_is_delivered() {
    let (world, project) = setup().await;
    let intake = intake(&world);
    let configs = [project.platform_config_id];
    let delivery = Some(DeliveryRef {
        platform: PlatformType::Gitlab,
        id: "delivery-1",
    });

    let (first, _) = intake
        .handle(&configs, delivery, opened(&project, 1, "h1"))
        .await
        .unwrap();
    let IntakeOutcome::Queued { task_id } = first else {
        panic!("not queued: {first:?}");
    };
    let (again, _) = intake
        .handle(&configs, delivery, opened(&project, 1, "h1"))
        .await
        .unwrap();
    assert!(matches!(again, IntakeOutcome::Ignored(ref why) if why.contains("duplicate")));
    let (repeat, _) = intake
        .handle(
            &configs,
            Some(DeliveryRef {
                platform: PlatformType::Gitlab,
                id: "delivery-2",
            }),
            opened(&project, 1, "h1"),
        )
        .await
        .unwrap();
    assert_eq!(
        repeat,
        IntakeOutcome::AlreadyQueued { task_id },
        "same head, one task"
    );
    assert_eq!(world.queue.queued_tasks(), vec![task_id]);
    assert_eq!(world.queue.depth().await.unwrap(), 1);
}

#[tokio::test]
async fn events_that_do_not_ask_for_a_review_queue_nothing() {
    let (world, project) = setup().await;
    let intake = intake(&world);
    let configs = [project.platform_config_id];
    let closed = WebhookEvent::MergeRequest(MergeRequestEvent {
        action: MrAction::Other("close".into()),
        ..match opened(&project, 1, "h1") {
            WebhookEvent::MergeRequest(mr) => mr,
            _ => unreachable!(),
        }
    });
    let chatter = WebhookEvent::Comment(CommentEvent {
        platform_type: PlatformType::Gitlab,
        platform_project_id: project.platform_project_id.clone(),
        iid: 1,
        body: "looks fine to me".into(),
        head_sha: Some("h1".into()),
        in_thread: false,
        may_command: true,
    });
    let elsewhere = opened(&project, 1, "h1");
    for (configs, event) in [
        (&configs[..], closed),
        (&configs[..], chatter),
        (&[][..], elsewhere),
    ] {
        let (outcome, _) = intake.handle(configs, None, event).await.unwrap();
        assert!(matches!(outcome, IntakeOutcome::Ignored(_)), "{outcome:?}");
    }
    world
        .stores
        .projects
        .update_settings(
            project.id,
            ProjectSettingsChanges {
                enabled: Some(false),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let (outcome, _) = intake
        .handle(&configs, None, opened(&project, 1, "h1"))
        .await
        .unwrap();
    assert!(matches!(outcome, IntakeOutcome::Ignored(ref why) if why.contains("disabled")));
    assert!(world.queue.queued_tasks().is_empty());
}

#[tokio::test]
async fn a_review_command_in_a_comment_queues_a_review() {
    let (world, project) = setup().await;
    let intake = intake(&world);
    let (outcome, _) = intake
        .handle(
            &[project.platform_config_id],
            None,
            WebhookEvent::Comment(CommentEvent {
                platform_type: PlatformType::Gitlab,
                platform_project_id: project.platform_project_id.clone(),
                iid: 1,
                body: "/review please".into(),
                head_sha: Some("h1".into()),
                in_thread: false,
                may_command: true,
            }),
        )
        .await
        .unwrap();
    assert!(
        matches!(outcome, IntakeOutcome::Queued { .. }),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn a_queue_outage_is_answered_as_an_error_and_the_redelivery_is_processed() {
    let (world, project) = setup().await;
    let intake = intake(&world);
    let configs = [project.platform_config_id];
    let delivery = Some(DeliveryRef {
        platform: PlatformType::Gitlab,
        id: "delivery-9",
    });
    world.queue.set_down(true);
    assert!(
        intake
            .handle(&configs, delivery, opened(&project, 1, "h1"))
            .await
            .is_err(),
        "the platform is told to retry, not that the review was queued"
    );

    world.queue.set_down(false);
    let (outcome, _) = intake
        .handle(&configs, delivery, opened(&project, 1, "h1"))
        .await
        .unwrap();
    let IntakeOutcome::Queued { task_id } = outcome else {
        panic!("the redelivery was not processed: {outcome:?}");
    };
    assert_eq!(world.queue.queued_tasks(), vec![task_id]);
}

#[tokio::test]
async fn an_unacknowledged_message_is_reclaimed_after_its_idle_time_on_the_clock() {
    let (world, project) = setup().await;
    let task = world.enqueue(&project, 1, "h1").await;
    let pulled = world
        .queue
        .pull("worker-a", 10, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(pulled.len(), 1);
    assert!(
        world
            .queue
            .reclaim("worker-b", Duration::from_secs(60), 10)
            .await
            .unwrap()
            .is_empty()
    );
    world.clock.advance(Duration::from_secs(61));
    let reclaimed = world
        .queue
        .reclaim("worker-b", Duration::from_secs(60), 10)
        .await
        .unwrap();
    assert_eq!(
        reclaimed.iter().map(|d| d.task_id).collect::<Vec<_>>(),
        vec![task.id]
    );
    assert_eq!(world.task(&task).await.status, TaskStatus::Queued);
}

#[tokio::test]
async fn after_the_queue_is_lost_every_unfinished_task_is_queued_again_and_no_finished_one() {
    let world = World::new();
    let (project, _) = world
        .project(
            ProjectFixture::new("g/app")
                .mr(MrFixture::new(1))
                .mr(MrFixture::new(2))
                .mr(MrFixture::new(3)),
        )
        .await;
    let done = world.enqueue(&project, 1, "h1").await;
    assert!(matches!(
        world.run(&done).await,
        reviewd_domain::services::RunOutcome::Completed { .. }
    ));
    let waiting = world.enqueue(&project, 2, "h1").await;
    let running = world.enqueue(&project, 3, "h1").await;
    world
        .stores
        .tasks
        .begin_attempt(running.id, "worker-b", Duration::from_secs(60))
        .await
        .unwrap();

    // Redis restarted empty: the messages and the group are gone.
    world.queue.lose_everything();
    assert!(matches!(
        world.queue.pull("worker-a", 10, Duration::ZERO).await,
        Err(reviewd_domain::ports::QueueError::Lost(_))
    ));
    assert!(world.queue.ensure().await.unwrap(), "made again");
    assert_eq!(world.tasks.requeue_lost().await.unwrap(), 2);

    let mut queued = world.queue.queued_tasks();
    queued.sort();
    let mut expected = vec![waiting.id, running.id];
    expected.sort();
    assert_eq!(queued, expected, "the finished task is not queued again");
}
