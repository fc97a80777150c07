//! The preparer racing claims never gives a task twice; without a runner nothing is prepared.

use super::*;

#[tokio::test]
async fn the_preparer_racing_claims_never_gives_a_task_twice() {
    let (world, tasks) = world_with_tasks(12).await;
    let service = world.runner_service();
    let keys: Vec<Uuid> = (0..3).map(|_| Uuid::new_v4()).collect();
    for (i, key) in keys.iter().enumerate() {
        service
            .register(&runner_registration(&format!("r{i}"), *key, 20))
            .await
            .unwrap();
    }
    let mut claimed = Vec::new();
    for _ in 0..20 {
        let (prepared, a, b, c) = tokio::join!(
            service.prepare_ahead(),
            service.claim(keys[0], "r0", 1),
            service.claim(keys[1], "r1", 2),
            service.claim(keys[2], "r2", 1),
        );
        prepared.unwrap();
        for (runner, got) in [("r0", a), ("r1", b), ("r2", c)] {
            claimed.extend(got.unwrap().into_iter().map(|t| (runner, t)));
        }
    }
    let mut ids: Vec<Uuid> = claimed.iter().map(|(_, t)| t.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), claimed.len(), "no task handed out twice");
    assert_eq!(ids.len(), tasks.len(), "every task handed out");
    for (runner, task) in &claimed {
        let key = keys[usize::from(runner.as_bytes()[1] - b'0')];
        service
            .submit_result(key, task.id, &runner_success(runner))
            .await
            .unwrap();
    }
    for task in &tasks {
        let done = world.task(task).await;
        assert_eq!(
            done.status,
            TaskStatus::Completed,
            "{:?}",
            done.error_message
        );
    }
}

/// With no runner online a pass prepares nothing and says so (the preparer's loop
/// then waits longer before it looks again); once one registers, it prepares.
#[tokio::test]
async fn without_a_runner_online_nothing_is_prepared_and_the_pass_says_so() {
    let (world, _tasks) = world_with_tasks(1).await;
    let service = world.runner_service();
    let report = service.prepare_ahead().await.unwrap();
    assert!(!report.runners_online, "{report:?}");
    assert_eq!(report.prepared, 0);

    service
        .register(&runner_registration("r1", Uuid::new_v4(), 2))
        .await
        .unwrap();
    let report = service.prepare_ahead().await.unwrap();
    assert!(report.runners_online, "{report:?}");
    assert_eq!(report.prepared, 1);
}
