//! The queue failing: an outage answered as an error, a message reclaimed on the clock, a lost
//! queue made again with every unfinished task.

use super::*;

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
