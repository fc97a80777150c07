//! AI configurations on the in-memory adapters: what an admin may store, which one
//! is the default, which one a project's review (or a runner's task) is sent to,
//! and what the health check covers.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

mod checks;
mod routing;

use reviewd_domain::ErrorCode;
use reviewd_domain::model::runner::RunnerRegistration;
use reviewd_domain::model::{AiConfig, AiSource, ProjectSettingsChanges, SecretString};
use reviewd_domain::ports::AiError;
use reviewd_domain::services::{AiConfigInput, AiConfigPatch, AiTrial, RunOutcome, ServiceError};
use reviewd_testkit::fakes::hosting::{MrFixture, ProjectFixture};
use reviewd_testkit::world::{World, added_lines};
use std::time::Duration;
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

async fn bind(world: &World, project: reviewd_domain::model::ProjectId, config: Option<Uuid>) {
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
