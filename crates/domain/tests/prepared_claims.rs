//! Rounds prepared ahead of runners' claims, on the in-memory adapters: a prepared
//! round is handed out without a platform call, an idle claim still prepares
//! inline, a superseded task's prepared round is ended, and the preparer racing
//! claims never gives one task to two runners.

use reviewd_domain::model::TaskStatus;
use reviewd_domain::model::runner::{
    RunnerFileResult, RunnerMetrics, RunnerOutcome, RunnerRegistration, RunnerResult,
};
use reviewd_testkit::fakes::hosting::{MrFixture, Op, ProjectFixture};
use reviewd_testkit::world::{World, added_lines};
use uuid::Uuid;

fn registration(id: &str, key: Uuid, capacity: i32) -> RunnerRegistration {
    RunnerRegistration {
        id: id.into(),
        name: format!("runner {id}"),
        version: "1.0.0".into(),
        max_concurrent_jobs: capacity,
        tags: vec![],
        api_key_id: Some(key),
    }
}

fn success(runner_id: &str) -> RunnerResult {
    RunnerResult {
        runner_id: runner_id.into(),
        status: RunnerOutcome::Success,
        files: vec![RunnerFileResult {
            file_path: "a.rs".into(),
            status: RunnerOutcome::Success,
            comments: vec![],
            summary: Some("Fine.".into()),
            error: None,
            context: None,
        }],
        total_comments: 0,
        rating: Some("A".into()),
        metrics: RunnerMetrics {
            duration_ms: 10,
            container_prepare_ms: 1,
            clone_ms: 1,
            review_ms: 7,
            submit_ms: 1,
            tokens_used: None,
            prompt_tokens: None,
            completion_tokens: None,
            cached_tokens: None,
        },
        error: None,
        logs: None,
        summary: None,
        context: None,
    }
}

fn mr(iid: i64, head: &str) -> MrFixture {
    MrFixture::new(iid)
        .head(head)
        .title(&format!("MR {iid}"))
        .file("a.rs", &added_lines(&["x"]))
}

async fn world_with_tasks(n: i64) -> (World, Vec<reviewd_domain::model::ReviewTask>) {
    let world = World::new();
    let fixture = (1..=n).fold(ProjectFixture::new("g/app"), |p, iid| {
        p.mr(mr(iid, &format!("h{iid}")))
    });
    let (project, _) = world.project(fixture).await;
    let mut tasks = Vec::new();
    for iid in 1..=n {
        tasks.push(world.enqueue(&project, iid, &format!("h{iid}")).await);
    }
    (world, tasks)
}

#[tokio::test]
async fn a_prepared_round_is_handed_out_without_a_platform_call_and_concludes() {
    let (world, tasks) = world_with_tasks(1).await;
    let service = world.runner_service();
    let key = Uuid::new_v4();
    service.register(&registration("r1", key, 2)).await.unwrap();

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
        .submit_result(key, task.id, &success("r1"))
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
    service.register(&registration("r1", key, 1)).await.unwrap();

    let claimed = service.claim(key, "r1", 1).await.unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].id, tasks[0].id);
    assert!(
        world.platform.calls().contains(&Op::GetMergeRequest),
        "nothing was prepared: the claim read the MR itself"
    );
    service
        .submit_result(key, claimed[0].id, &success("r1"))
        .await
        .unwrap();
    assert_eq!(world.task(&tasks[0]).await.status, TaskStatus::Completed);
}

#[tokio::test]
async fn a_superseded_task_s_prepared_round_is_ended_and_the_newer_head_claimed() {
    let world = World::new();
    let (project, on_platform) = world
        .project(ProjectFixture::new("g/app").mr(mr(1, "old")))
        .await;
    let old = world.enqueue(&project, 1, "old").await;
    let service = world.runner_service();
    let key = Uuid::new_v4();
    service.register(&registration("r1", key, 1)).await.unwrap();
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
        .submit_result(key, claimed[0].id, &success("r1"))
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
    service.register(&registration("r1", key, 1)).await.unwrap();
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

#[tokio::test]
async fn the_preparer_racing_claims_never_gives_a_task_twice() {
    let (world, tasks) = world_with_tasks(12).await;
    let service = world.runner_service();
    let keys: Vec<Uuid> = (0..3).map(|_| Uuid::new_v4()).collect();
    for (i, key) in keys.iter().enumerate() {
        service
            .register(&registration(&format!("r{i}"), *key, 20))
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
            .submit_result(key, task.id, &success(runner))
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
        .register(&registration("r1", Uuid::new_v4(), 2))
        .await
        .unwrap();
    let report = service.prepare_ahead().await.unwrap();
    assert!(report.runners_online, "{report:?}");
    assert_eq!(report.prepared, 1);
}
