//! Runners on the in-memory adapters: claims, results, and silent runners swept on
//! the fake clock.

use reviewd_domain::model::TaskStatus;
use reviewd_domain::model::runner::{
    RunnerFileResult, RunnerMetrics, RunnerOutcome, RunnerRegistration, RunnerResult, RunnerStatus,
};
use reviewd_domain::services::ServiceError;
use reviewd_testkit::fakes::hosting::{MrFixture, ProjectFixture};
use reviewd_testkit::world::{World, added_lines};
use std::time::Duration;
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

fn result_of(runner_id: &str) -> RunnerResult {
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

async fn world_with_tasks(n: i64) -> (World, Vec<reviewd_domain::model::ReviewTask>) {
    let world = World::new();
    let fixture = (1..=n).fold(ProjectFixture::new("g/app"), |p, iid| {
        p.mr(MrFixture::new(iid)
            .head(&format!("h{iid}"))
            .file("a.rs", &added_lines(&["x"])))
    });
    let (project, _) = world.project(fixture).await;
    let mut tasks = Vec::new();
    for iid in 1..=n {
        tasks.push(world.enqueue(&project, iid, &format!("h{iid}")).await);
    }
    (world, tasks)
}

#[tokio::test]
async fn two_runners_never_claim_the_same_task_and_stay_within_capacity() {
    let (world, tasks) = world_with_tasks(5).await;
    let service = world.runner_service();
    let (k1, k2) = (Uuid::new_v4(), Uuid::new_v4());
    service.register(&registration("r1", k1, 2)).await.unwrap();
    service.register(&registration("r2", k2, 10)).await.unwrap();

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
    service.register(&registration("r1", key, 1)).await.unwrap();
    let claimed = service.claim(key, "r1", 1).await.unwrap();
    assert_eq!(claimed.len(), 1);

    service
        .submit_result(key, claimed[0].id, &result_of("r1"))
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
            .submit_result(key, claimed[0].id, &result_of("r1"))
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
    service.register(&registration("r1", k1, 1)).await.unwrap();
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

    service.register(&registration("r2", k2, 1)).await.unwrap();
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

/// A runner reports its tokens; the server prices them with the project's AI
/// configuration (the default here), and a runner without the prompt/completion
/// split leaves the cost unknown rather than guessed.
#[tokio::test]
async fn a_runner_s_tokens_are_priced_by_the_server_with_the_task_s_configuration() {
    use reviewd_domain::services::AiConfigInput;
    let (world, tasks) = world_with_tasks(2).await;
    world
        .ai_configs
        .create(AiConfigInput {
            name: "priced".into(),
            endpoint: "https://priced.example.com/v1".into(),
            model: "model-priced".into(),
            input_price_per_mtok: Some(2.0),
            output_price_per_mtok: Some(8.0),
            is_default: Some(true),
            ..AiConfigInput::default()
        })
        .await
        .unwrap();
    let service = world.runner_service();
    let key = Uuid::new_v4();
    service.register(&registration("r1", key, 2)).await.unwrap();
    let claimed = service.claim(key, "r1", 2).await.unwrap();
    assert_eq!(claimed.len(), 2);

    let mut split = result_of("r1");
    split.metrics.tokens_used = Some(1_500);
    split.metrics.prompt_tokens = Some(1_000);
    split.metrics.completion_tokens = Some(500);
    let mut total_only = result_of("r1");
    total_only.metrics.tokens_used = Some(1_500);
    service
        .submit_result(key, claimed[0].id, &split)
        .await
        .unwrap();
    service
        .submit_result(key, claimed[1].id, &total_only)
        .await
        .unwrap();

    let cost = |task_id: Uuid| {
        let world = &world;
        let task = tasks.iter().find(|t| t.id == task_id).unwrap().clone();
        async move {
            let review_id = world.task(&task).await.review_id.unwrap();
            let (logs, _) = world
                .stores
                .review_queries
                .ai_logs(review_id, None, None, 10, 0)
                .await
                .unwrap();
            assert_eq!(logs.len(), 1, "{logs:?}");
            logs[0].cost_usd
        }
    };
    assert_eq!(
        cost(claimed[0].id).await,
        Some((1_000.0 * 2.0 + 500.0 * 8.0) / 1e6)
    );
    assert_eq!(cost(claimed[1].id).await, None, "no split, no guess");
}
