//! Claims within capacity, one result per task, and silent runners swept on the clock.

use super::*;

#[tokio::test]
async fn two_runners_never_claim_the_same_task_and_stay_within_capacity() {
    let (world, tasks) = world_with_tasks(5).await;
    let service = world.runner_service();
    let (k1, k2) = (Uuid::new_v4(), Uuid::new_v4());
    service
        .register(&runner_registration("r1", k1, 2))
        .await
        .unwrap();
    service
        .register(&runner_registration("r2", k2, 10))
        .await
        .unwrap();

    let (a, b) = tokio::join!(service.claim(k1, "r1", 10), service.claim(k2, "r2", 10));
    let (a, b) = (a.unwrap(), b.unwrap());
    assert!(a.len() <= 2, "r1 holds at most its capacity: {}", a.len());
    let mut ids: Vec<_> = a.iter().chain(&b).map(|t| t.id).collect();
    ids.sort();
    let before = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), before, "no task handed to both runners");
    assert_eq!(
        before,
        tasks.len(),
        "every queued task was claimed by someone"
    );
    assert!(
        service.claim(k1, "r1", 10).await.unwrap().is_empty(),
        "nothing left to claim"
    );
}

#[tokio::test]
async fn a_result_completes_the_review_once_and_a_second_result_is_refused() {
    let (world, tasks) = world_with_tasks(1).await;
    let service = world.runner_service();
    let key = Uuid::new_v4();
    service
        .register(&runner_registration("r1", key, 1))
        .await
        .unwrap();
    let claimed = service.claim(key, "r1", 1).await.unwrap();
    assert_eq!(claimed.len(), 1);

    service
        .submit_result(key, claimed[0].id, &runner_success("r1"))
        .await
        .unwrap();
    let task = world.task(&tasks[0]).await;
    assert_eq!(
        task.status,
        TaskStatus::Completed,
        "{:?}",
        task.error_message
    );
    assert!(matches!(
        service
            .submit_result(key, claimed[0].id, &runner_success("r1"))
            .await,
        Err(ServiceError::Conflict(_))
    ));
    assert!(
        matches!(
            service.claim(Uuid::new_v4(), "r1", 1).await,
            Err(ServiceError::Forbidden(_))
        ),
        "another key cannot act for the runner"
    );
}

#[tokio::test]
async fn a_silent_runner_is_swept_on_the_clock_and_its_task_claimed_again() {
    let (world, tasks) = world_with_tasks(1).await;
    let service = world.runner_service();
    let (k1, k2) = (Uuid::new_v4(), Uuid::new_v4());
    service
        .register(&runner_registration("r1", k1, 1))
        .await
        .unwrap();
    assert_eq!(service.claim(k1, "r1", 1).await.unwrap().len(), 1);

    // 20 s of silence is within the 30 s heartbeat timeout: nothing moves.
    world.clock.advance(Duration::from_secs(20));
    let report = service.sweep(Duration::from_secs(30)).await.unwrap();
    assert_eq!(report.runners_offline, 0);

    world.clock.advance(Duration::from_secs(20));
    let report = service.sweep(Duration::from_secs(30)).await.unwrap();
    assert_eq!(
        (report.runners_offline, report.requeued.clone()),
        (1, vec![tasks[0].id])
    );
    assert_eq!(
        service.get("r1").await.unwrap().status,
        RunnerStatus::Offline
    );
    assert_eq!(world.task(&tasks[0]).await.status, TaskStatus::Queued);

    service
        .register(&runner_registration("r2", k2, 1))
        .await
        .unwrap();
    assert!(
        service.claim(k2, "r2", 1).await.unwrap().is_empty(),
        "a task given back waits the retry delay"
    );
    world.clock.advance(Duration::from_secs(6));
    let again = service.claim(k2, "r2", 1).await.unwrap();
    assert_eq!(
        again.iter().map(|t| t.id).collect::<Vec<_>>(),
        vec![tasks[0].id]
    );
}
