//! The health check over every configuration, and trying settings without storing them.

use super::*;

#[tokio::test]
async fn the_health_check_covers_every_configuration_and_providera_while_it_applies() {
    let world = World::new();
    let names = |targets: Vec<reviewd_domain::model::AiTarget>| {
        targets
            .into_iter()
            .map(|t| (t.name, t.is_default))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(world.ai_configs.health_targets().await.unwrap()),
        [("providerA".to_owned(), true)]
    );
    create(&world, "a", true).await;
    create(&world, "b", false).await;
    assert_eq!(
        names(world.ai_configs.health_targets().await.unwrap()),
        [
            ("a".to_owned(), true),
            ("b".to_owned(), false),
            ("providerA".to_owned(), false)
        ],
        "PROVIDERA_ENDPOINT is set: still checked"
    );
}

#[tokio::test]
async fn trying_settings_reports_the_providers_answer_and_stores_nothing() {
    let world = World::new();
    let trial = AiTrial {
        endpoint: Some("https://ai.example.com/v1".into()),
        api_key: Some("sk-try".into()),
        model: Some("gpt-4.1".into()),
        ..AiTrial::default()
    };
    let report = world.ai_configs.test(trial.clone()).await.unwrap();
    assert!(report.success, "{report:?}");
    assert_eq!(report.model.as_deref(), Some("gpt-4.1"));
    let tried = world.providers.asked().pop().unwrap();
    assert_eq!(
        (tried.source, tried.timeout),
        (AiSource::Trial, Some(Duration::from_secs(10))),
        "one attempt, cut at 10 s rather than the default timeoutSecs of 120"
    );
    assert!(world.ai_configs.list().await.unwrap().is_empty());

    world.ai.set_outage(Some(AiError::Unauthorized));
    let refused = world.ai_configs.test(trial).await.unwrap();
    assert!(!refused.success);
    assert!(
        refused.message.contains("rejected the API key"),
        "{refused:?}"
    );

    // Nothing named: the configuration reviews use by default (here the built-in
    // one), at its own endpoint.
    let by_default = world.ai_configs.test(AiTrial::default()).await.unwrap();
    assert!(!by_default.success, "the outage answers: {by_default:?}");
    let tried = world.providers.asked().pop().unwrap();
    assert_eq!(tried.endpoint, world.ai_configs.builtin().endpoint);
    assert!(tried.endpoint.is_some());
    let stored = world.ai_configs.create(input("a")).await.unwrap();
    world.ai.set_outage(None);
    let with_stored_key = AiTrial {
        id: Some(stored.id),
        api_key: Some("***".into()),
        ..AiTrial::default()
    };
    assert!(
        world
            .ai_configs
            .test(with_stored_key)
            .await
            .unwrap()
            .success
    );
    let tried = world.providers.asked().pop().unwrap();
    assert_eq!(
        (
            tried.endpoint.as_deref(),
            tried.api_key,
            tried.model.as_str()
        ),
        (
            Some("https://a.example.com/v1"),
            Some(SecretString::new("sk-a")),
            "model-a"
        ),
        "the stored configuration fills in what the trial leaves out"
    );
    // Another endpoint never gets the stored key: it must come with one of its own.
    let elsewhere = AiTrial {
        id: Some(stored.id),
        endpoint: Some("https://collector.example.net/v1".into()),
        ..AiTrial::default()
    };
    assert_eq!(
        fields(world.ai_configs.test(elsewhere.clone()).await),
        ["apiKey"]
    );
    let asked = world.providers.asked().len();
    assert!(
        world
            .ai_configs
            .test(AiTrial {
                api_key: Some("sk-other".into()),
                ..elsewhere
            })
            .await
            .unwrap()
            .success
    );
    let tried = world.providers.asked();
    assert_eq!(tried.len(), asked + 1);
    assert_eq!(
        tried.last().unwrap().api_key,
        Some(SecretString::new("sk-other"))
    );
    assert!(matches!(
        world
            .ai_configs
            .test(AiTrial {
                id: Some(Uuid::new_v4()),
                ..AiTrial::default()
            })
            .await,
        Err(ServiceError::NotFound(_))
    ));
}
