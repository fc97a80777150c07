//! Prepared rounds of superseded tasks are ended, not left pending.

use super::*;

#[tokio::test]
async fn a_superseded_task_s_prepared_round_is_ended_and_the_newer_head_claimed() {
    let world = World::new();
    let (project, on_platform) = world
        .project(ProjectFixture::new("g/app").mr(mr(1, "old")))
        .await;
    let old = world.enqueue(&project, 1, "old").await;
    let service = world.runner_service();
    let key = Uuid::new_v4();
    service
        .register(&runner_registration("r1", key, 1))
        .await
        .unwrap();
    assert_eq!(service.prepare_ahead().await.unwrap().prepared, 1);

    // A push: the MR moves on and a task for the new head supersedes the old one.
    world.platform.put_merge_request(&on_platform, mr(1, "new"));
    let new = world.enqueue(&project, 1, "new").await;
    assert_eq!(world.task(&old).await.status, TaskStatus::Superseded);

    let report = service.prepare_ahead().await.unwrap();
    assert_eq!(report.ended, 1, "the old round was ended: {report:?}");
    assert_eq!(report.prepared, 1, "the new head was prepared: {report:?}");
    assert_eq!(
        service.prepare_ahead().await.unwrap().ended,
        0,
        "an ended round is not ended twice"
    );
    let claimed = service.claim(key, "r1", 1).await.unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(
        (claimed[0].id, claimed[0].commit_sha.as_str()),
        (new.id, "new")
    );
    assert_eq!(world.task(&old).await.status, TaskStatus::Superseded);
    service
        .submit_result(key, claimed[0].id, &runner_success("r1"))
        .await
        .unwrap();
    let review = world
        .stores
        .reviews
        .get(claimed[0].review_id)
        .await
        .unwrap();
    assert_eq!(review.head_commit_sha, "new");
    assert_eq!(
        review.status,
        reviewd_domain::model::review::ReviewStatus::Completed
    );
}

#[tokio::test]
async fn a_superseded_round_left_alone_is_ended_not_left_pending() {
    let world = World::new();
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(mr(1, "old")))
        .await;
    let old = world.enqueue(&project, 1, "old").await;
    let service = world.runner_service();
    let key = Uuid::new_v4();
    service
        .register(&runner_registration("r1", key, 1))
        .await
        .unwrap();
    assert_eq!(service.prepare_ahead().await.unwrap().prepared, 1);
    let review_id = world.task(&old).await.review_id.unwrap();

    // A newer head is queued, but the runner is gone, so nothing begins a newer
    // round for a while.
    world.enqueue(&project, 1, "new").await;
    assert_eq!(world.task(&old).await.status, TaskStatus::Superseded);
    service.deregister("r1").await.unwrap();

    let report = service.prepare_ahead().await.unwrap();
    assert_eq!(report.ended, 1, "{report:?}");
    let review = world.stores.reviews.get(review_id).await.unwrap();
    assert_eq!(
        review.status,
        reviewd_domain::model::review::ReviewStatus::Failed,
        "the round was ended, not left pending"
    );
}
