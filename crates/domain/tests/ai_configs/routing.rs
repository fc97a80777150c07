//! Which configuration a review (or a runner's task) is sent to: the project's, else the
//! default, else providerA; one in use is not deleted; an unusable provider fails the review
//! with the reason.

use super::*;

#[tokio::test]
async fn a_review_goes_to_its_projects_configuration_else_the_default_else_providera() {
    let world = World::new();
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(one_file_mr(1)))
        .await;
    let builtin = world.ai_configs.target(None).await.unwrap();
    assert_eq!(
        (
            builtin.source,
            builtin.name.as_str(),
            builtin.model.as_str()
        ),
        (AiSource::Builtin, "providerA", "gpt-4o-mini"),
        "nothing stored: the PROVIDERA_* configuration"
    );

    let a = create(&world, "a", true).await;
    let b = create(&world, "b", false).await;
    assert_eq!(
        world.ai_configs.target(None).await.unwrap().model,
        "model-a"
    );
    assert_eq!(
        world.ai_configs.target(Some(b.id)).await.unwrap().model,
        "model-b"
    );
    assert_eq!(
        world
            .ai_configs
            .target(Some(Uuid::new_v4()))
            .await
            .unwrap()
            .model,
        "model-a",
        "a configuration deleted meanwhile: the default"
    );

    // `isDefault: false` on the default leaves none: PROVIDERA_* again.
    let patch = AiConfigPatch {
        is_default: Some(false),
        ..AiConfigPatch::default()
    };
    assert!(
        !world
            .ai_configs
            .update(a.id, patch)
            .await
            .unwrap()
            .is_default
    );
    assert_eq!(
        world.ai_configs.target(None).await.unwrap().source,
        AiSource::Builtin
    );
    world.ai_configs.set_default(b.id).await.unwrap();
    assert!(!world.ai_configs.get(a.id).await.unwrap().is_default);
    bind(&world, project.id, Some(a.id)).await;
    let resolved = world.projects.resolved_config(project.id).await.unwrap();
    assert_eq!(
        (resolved.ai_config_id, resolved.ai_config_inherited),
        (Some(a.id), false)
    );

    // Deleting the default hands it to no one.
    world.ai_configs.delete(b.id).await.unwrap();
    assert!(
        world
            .ai_configs
            .list()
            .await
            .unwrap()
            .iter()
            .all(|c| !c.is_default)
    );
    assert_eq!(
        world.ai_configs.target(None).await.unwrap().source,
        AiSource::Builtin
    );
}

#[tokio::test]
async fn a_configuration_in_use_is_not_deleted_and_the_refusal_names_the_projects() {
    let world = World::new();
    let config = create(&world, "a", true).await;
    let (api, _) = world.project(ProjectFixture::new("g/api")).await;
    let (web, _) = world.project(ProjectFixture::new("g/web")).await;
    let (inheriting, _) = world.project(ProjectFixture::new("g/docs")).await;
    bind(&world, web.id, Some(config.id)).await;
    bind(&world, api.id, Some(config.id)).await;

    match world.ai_configs.delete(config.id).await {
        Err(ServiceError::BadRequest { code, message }) => {
            assert_eq!(code, ErrorCode::ProjectsLinked);
            assert!(
                message.contains("2 project(s)") && message.contains("g/api, g/web"),
                "{message}"
            );
            assert!(
                !message.contains("g/docs"),
                "an inheriting project does not block"
            );
        }
        other => panic!("expected PROJECTS_LINKED, got {other:?}"),
    }
    bind(&world, api.id, None).await;
    bind(&world, web.id, None).await;
    world.ai_configs.delete(config.id).await.unwrap();
    assert_eq!(
        world
            .projects
            .get(inheriting.id)
            .await
            .unwrap()
            .ai_config_id,
        None
    );
    assert!(matches!(
        world.ai_configs.delete(config.id).await,
        Err(ServiceError::NotFound(_))
    ));
}

#[tokio::test]
async fn a_project_bound_to_a_configuration_has_its_review_sent_there_with_its_model() {
    let world = World::new();
    create(&world, "a", true).await;
    let b = create(&world, "b", false).await;
    let (project, _) = world
        .project(
            ProjectFixture::new("g/app")
                .mr(one_file_mr(1))
                .mr(one_file_mr(2)),
        )
        .await;
    bind(&world, project.id, Some(b.id)).await;

    let task = world.enqueue(&project, 1, "h1").await;
    let RunOutcome::Completed { review_id } = world.run(&task).await else {
        panic!("the review did not complete");
    };
    let requests = world.ai.requests();
    assert!(!requests.is_empty());
    assert!(
        requests.iter().all(|r| r.model == "model-b"),
        "{requests:?}"
    );
    let asked = world.providers.asked();
    let last = asked.last().unwrap();
    assert_eq!(
        (last.endpoint.as_deref(), last.api_key.as_ref()),
        (
            Some("https://b.example.com/v1"),
            Some(&SecretString::new("sk-b"))
        )
    );
    let detail = world.stores.review_queries.detail(review_id).await.unwrap();
    assert_eq!(
        (
            detail.item.ai_provider.as_str(),
            detail.item.ai_model.as_str()
        ),
        ("b", "model-b")
    );
    let (calls, _) = world
        .stores
        .review_queries
        .ai_logs(review_id, None, None, 10, 0)
        .await
        .unwrap();
    assert!(
        calls
            .iter()
            .all(|c| (c.provider.as_str(), c.model.as_str()) == ("b", "model-b"))
    );

    // Unbound, the project follows the default again.
    bind(&world, project.id, None).await;
    let task = world.enqueue(&project, 2, "h2").await;
    world.run(&task).await;
    assert_eq!(world.ai.requests().last().unwrap().model, "model-a");
}

#[tokio::test]
async fn an_unusable_provider_fails_the_review_with_the_reason() {
    let world = World::new();
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(one_file_mr(1)))
        .await;
    world.providers.break_with(Some(AiError::Unavailable(
        "cannot build a TLS client".into(),
    )));
    let task = world.enqueue(&project, 1, "h1").await;
    let RunOutcome::Failed { error } = world.run(&task).await else {
        panic!("a provider that cannot be built is not retried");
    };
    assert!(
        error.contains("`providerA` is unusable") && error.contains("TLS client"),
        "{error}"
    );
    assert!(world.ai.requests().is_empty());
    let review = world
        .stores
        .reviews
        .find_for_mr(project.id, 1)
        .await
        .unwrap();
    assert_eq!(
        review.map(|r| r.status),
        Some(reviewd_domain::model::review::ReviewStatus::Failed),
        "the review says so too"
    );
}

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
