//! A prepared round handed out without a platform call; an idle claim prepares inline.

use super::*;

#[tokio::test]
async fn a_prepared_round_is_handed_out_without_a_platform_call_and_concludes() {
    let (world, tasks) = world_with_tasks(1).await;
    let service = world.runner_service();
    let key = Uuid::new_v4();
    service
        .register(&runner_registration("r1", key, 2))
        .await
        .unwrap();

    let report = service.prepare_ahead().await.unwrap();
    assert_eq!(report.prepared, 1, "{report:?}");
    assert_eq!(
        service.prepare_ahead().await.unwrap().prepared,
        0,
        "a prepared task is not prepared twice"
    );
    let calls = world.platform.calls().len();
    let claimed = service.claim(key, "r1", 2).await.unwrap();
    assert_eq!(
        world.platform.calls()[calls..],
        [],
        "the claim asked the platform nothing"
    );
    assert_eq!(claimed.len(), 1);
    let task = &claimed[0];
    assert_eq!(task.id, tasks[0].id);
    assert_eq!(
        (task.mr_title.as_str(), task.commit_sha.as_str()),
        ("MR 1", "h1")
    );
    assert_eq!(task.files.len(), 1);
    assert_eq!(task.attempt, 1);
    assert_eq!(
        task.ai.api_key.as_deref(),
        Some("sk-test"),
        "resolved at claim time"
    );

    service
        .submit_result(key, task.id, &runner_success("r1"))
        .await
        .unwrap();
    let done = world.task(&tasks[0]).await;
    assert_eq!(
        done.status,
        TaskStatus::Completed,
        "{:?}",
        done.error_message
    );
}

#[tokio::test]
async fn an_idle_claim_prepares_its_round_inline() {
    let (world, tasks) = world_with_tasks(1).await;
    let service = world.runner_service();
    let key = Uuid::new_v4();
    service
        .register(&runner_registration("r1", key, 1))
        .await
        .unwrap();

    let claimed = service.claim(key, "r1", 1).await.unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].id, tasks[0].id);
    assert!(
        world.platform.calls().contains(&Op::GetMergeRequest),
        "nothing was prepared: the claim read the MR itself"
    );
    service
        .submit_result(key, claimed[0].id, &runner_success("r1"))
        .await
        .unwrap();
    assert_eq!(world.task(&tasks[0]).await.status, TaskStatus::Completed);
}
