//! A runner is given its project's configuration.

use super::*;

#[tokio::test]
async fn a_runner_is_given_its_projects_configuration() {
    let world = World::new();
    let b = world
        .ai_configs
        .create(AiConfigInput {
            timeout_secs: Some(45),
            max_concurrency: Some(2),
            ..input("b")
        })
        .await
        .unwrap();
    let (project, _) = world
        .project(
            ProjectFixture::new("g/app")
                .mr(one_file_mr(1))
                .mr(one_file_mr(2)),
        )
        .await;
    bind(&world, project.id, Some(b.id)).await;
    world.enqueue(&project, 1, "h1").await;
    let service = world.runner_service();
    let key = Uuid::new_v4();
    service
        .register(&RunnerRegistration {
            id: "r1".into(),
            name: "runner".into(),
            version: "1.0.0".into(),
            max_concurrent_jobs: 2,
            tags: vec![],
            api_key_id: Some(key),
        })
        .await
        .unwrap();
    let claimed = service.claim(key, "r1", 1).await.unwrap();
    let ai = &claimed[0].ai;
    assert_eq!(
        (
            ai.provider.as_str(),
            ai.endpoint.as_deref(),
            ai.api_key.as_deref(),
            ai.model.as_str()
        ),
        (
            "b",
            Some("https://b.example.com/v1"),
            Some("sk-b"),
            "model-b"
        )
    );
    assert_eq!((ai.timeout_secs, ai.max_concurrency), (Some(45), Some(2)));
    assert!(!format!("{ai:?}").contains("sk-b"), "the key never prints");

    // An unbound project's runner gets PROVIDERA_*, with the runner's own limits.
    bind(&world, project.id, None).await;
    world.enqueue(&project, 2, "h2").await;
    let claimed = service.claim(key, "r1", 1).await.unwrap();
    let ai = &claimed[0].ai;
    assert_eq!(
        (
            ai.provider.as_str(),
            ai.endpoint.as_deref(),
            ai.api_key.as_deref()
        ),
        ("providerA", Some("http://ai.invalid/v1"), Some("sk-test"))
    );
    assert_eq!((ai.timeout_secs, ai.max_concurrency), (None, None));
}
