//! AI configurations on the in-memory adapters: what an admin may store, which one
//! is the default, which one a project's review (or a runner's task) is sent to,
//! and what the health check covers.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

mod support;

use reviewd_domain::ErrorCode;
use reviewd_domain::model::runner::RunnerRegistration;
use reviewd_domain::model::{AiConfig, AiSource, ProjectSettingsChanges, SecretString};
use reviewd_domain::ports::AiError;
use reviewd_domain::services::{AiConfigInput, AiConfigPatch, AiTrial, RunOutcome, ServiceError};
use reviewd_testkit::fakes::hosting::{MrFixture, ProjectFixture};
use std::time::Duration;
use support::{World, added_lines};
use uuid::Uuid;

fn input(name: &str) -> AiConfigInput {
    AiConfigInput {
        name: name.into(),
        endpoint: format!("https://{name}.example.com/v1/"),
        api_key: Some(format!("sk-{name}")),
        model: format!("model-{name}"),
        ..AiConfigInput::default()
    }
}

async fn create(world: &World, name: &str, is_default: bool) -> AiConfig {
    world
        .ai_configs
        .create(AiConfigInput {
            is_default: Some(is_default),
            ..input(name)
        })
        .await
        .unwrap()
}

fn fields(result: Result<impl std::fmt::Debug, ServiceError>) -> Vec<String> {
    match result {
        Err(ServiceError::Invalid(errors)) => errors.into_iter().map(|e| e.field).collect(),
        other => panic!("expected Invalid, got {other:?}"),
    }
}

async fn bind(world: &World, project: Uuid, config: Option<Uuid>) {
    world
        .projects
        .update_settings(
            project,
            ProjectSettingsChanges {
                ai_config_id: Some(config),
                ..ProjectSettingsChanges::default()
            },
        )
        .await
        .unwrap();
}

fn one_file_mr(iid: i64) -> MrFixture {
    MrFixture::new(iid)
        .head(&format!("h{iid}"))
        .file("src/lib.rs", &added_lines(&["let a = 1;"]))
}

#[tokio::test]
async fn a_configuration_is_stored_normalised_with_its_defaults() {
    let world = World::new();
    let config = world.ai_configs.create(input("a")).await.unwrap();
    assert_eq!(
        config.endpoint, "https://a.example.com/v1",
        "no trailing slash"
    );
    assert_eq!(config.api_key, Some(SecretString::new("sk-a")));
    assert_eq!(
        (
            config.max_concurrency,
            config.timeout_secs,
            config.is_default
        ),
        (3, 120, false),
        "a new configuration is not the default unless it says so"
    );
    let local = world
        .ai_configs
        .create(AiConfigInput {
            api_key: Some("  ".into()),
            endpoint: "http://localhost:11434/v1".into(),
            max_concurrency: Some(64),
            timeout_secs: Some(3_600),
            input_price_per_mtok: Some(0.0),
            ..input("local")
        })
        .await
        .unwrap();
    assert_eq!(local.api_key, None, "a local server needs no key");
    assert_eq!((local.max_concurrency, local.timeout_secs), (64, 3_600));
}

#[tokio::test]
async fn every_bad_field_is_named_at_once() {
    let world = World::new();
    let bad = AiConfigInput {
        name: "  ".into(),
        endpoint: "ftp://ai.example.com".into(),
        model: String::new(),
        max_concurrency: Some(0),
        timeout_secs: Some(3_601),
        input_price_per_mtok: Some(-1.0),
        output_price_per_mtok: Some(f64::NAN),
        ..AiConfigInput::default()
    };
    assert_eq!(
        fields(world.ai_configs.create(bad).await),
        [
            "name",
            "endpoint",
            "model",
            "maxConcurrency",
            "timeoutSecs",
            "inputPricePerMTok",
            "outputPricePerMTok"
        ]
    );
    let masked_key = AiConfigInput {
        api_key: Some("***".into()),
        ..input("a")
    };
    assert_eq!(
        fields(world.ai_configs.create(masked_key).await),
        ["apiKey"]
    );
    let odd_host = AiConfigInput {
        endpoint: "http://10.0.0.5*/v1".into(),
        ..input("a")
    };
    assert_eq!(
        fields(world.ai_configs.create(odd_host).await),
        ["endpoint"]
    );

    let stored = world.ai_configs.create(input("b")).await.unwrap();
    let patch = AiConfigPatch {
        endpoint: Some("https://ai.example.com/v1?key=1".into()),
        max_concurrency: Some(65),
        ..AiConfigPatch::default()
    };
    assert_eq!(
        fields(world.ai_configs.update(stored.id, patch).await),
        ["endpoint", "maxConcurrency"]
    );
    assert_eq!(
        world.ai_configs.get(stored.id).await.unwrap(),
        stored,
        "nothing was changed"
    );
}

#[tokio::test]
async fn the_key_is_kept_behind_the_mask_replaced_or_cleared() {
    let world = World::new();
    let config = world.ai_configs.create(input("a")).await.unwrap();
    let update = |api_key: &str| AiConfigPatch {
        api_key: Some(api_key.into()),
        ..AiConfigPatch::default()
    };
    let kept = world
        .ai_configs
        .update(config.id, update("***"))
        .await
        .unwrap();
    assert_eq!(kept.api_key, Some(SecretString::new("sk-a")));
    let replaced = world
        .ai_configs
        .update(config.id, update("sk-new"))
        .await
        .unwrap();
    assert_eq!(replaced.api_key, Some(SecretString::new("sk-new")));
    let cleared = world
        .ai_configs
        .update(config.id, update(""))
        .await
        .unwrap();
    assert_eq!(cleared.api_key, None);
    let prices = world
        .ai_configs
        .update(
            config.id,
            AiConfigPatch {
                input_price_per_mtok: Some(Some(2.5)),
                ..AiConfigPatch::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(prices.input_price_per_mtok, Some(2.5));
    assert!(matches!(
        world.ai_configs.update(Uuid::new_v4(), update("x")).await,
        Err(ServiceError::NotFound("AI configuration"))
    ));
}

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

    assert_eq!(
        fields(world.ai_configs.test(AiTrial::default()).await),
        ["endpoint"]
    );
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
