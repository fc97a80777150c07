//! A project bound to a configuration, and a provider that cannot be used.

use super::*;

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
