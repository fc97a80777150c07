//! A runner's tokens priced by the server with the task's configuration.

use super::*;

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
    service
        .register(&runner_registration("r1", key, 2))
        .await
        .unwrap();
    let claimed = service.claim(key, "r1", 2).await.unwrap();
    assert_eq!(claimed.len(), 2);

    let mut split = runner_success("r1");
    split.metrics.tokens_used = Some(1_500);
    split.metrics.prompt_tokens = Some(1_000);
    split.metrics.completion_tokens = Some(500);
    let mut total_only = runner_success("r1");
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
