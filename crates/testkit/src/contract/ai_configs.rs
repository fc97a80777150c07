//! The `AiConfigRepository` contract: configurations in creation order, keys kept,
//! at most one default (replaced by a new default, never handed on), and deleting a
//! configuration unbinds the projects that named it.

use super::{Stores, assert_not_found, seed};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::{AiConfigChanges, NewAiConfig, ProjectSettingsChanges, SecretString};
use uuid::Uuid;

pub async fn run(s: &Stores) {
    create_and_get_keep_every_field(s).await;
    one_default_at_most(s).await;
    update_changes_only_what_it_names(s).await;
    list_is_in_creation_order(s).await;
    deleting_unbinds_projects_and_hands_the_default_to_no_one(s).await;
    unknown_ids_are_not_found(s).await;
    super::ai_fallbacks::run(s).await;
}

async fn default_id(s: &Stores) -> Option<Uuid> {
    s.ai_configs.default_config().await.unwrap().map(|c| c.id)
}

async fn create_and_get_keep_every_field(s: &Stores) {
    let new = seed::new_ai_config(false);
    let created = s.ai_configs.create(new.clone()).await.unwrap();
    assert_eq!(
        (
            &created.name,
            created.provider,
            &created.endpoint,
            &created.api_key,
            &created.model
        ),
        (
            &new.name,
            new.provider,
            &new.endpoint,
            &new.api_key,
            &new.model
        )
    );
    assert_eq!(
        (
            created.max_concurrency,
            created.timeout_secs,
            created.input_price_per_mtok,
            created.output_price_per_mtok,
            created.is_default,
        ),
        (4, 90, Some(0.15), Some(0.6), false)
    );
    assert_eq!(s.ai_configs.get(created.id).await.unwrap(), created);

    let keyless = s
        .ai_configs
        .create(NewAiConfig {
            api_key: None,
            input_price_per_mtok: None,
            output_price_per_mtok: None,
            ..seed::new_ai_config(false)
        })
        .await
        .unwrap();
    let got = s.ai_configs.get(keyless.id).await.unwrap();
    assert_eq!(
        (got.api_key, got.input_price_per_mtok),
        (None, None),
        "a local server: no key, no prices"
    );
}

async fn one_default_at_most(s: &Stores) {
    let first = s
        .ai_configs
        .create(seed::new_ai_config(true))
        .await
        .unwrap();
    assert_eq!(default_id(s).await, Some(first.id));
    let second = s
        .ai_configs
        .create(seed::new_ai_config(true))
        .await
        .unwrap();
    assert_eq!(
        default_id(s).await,
        Some(second.id),
        "a new default replaces the old"
    );
    assert!(!s.ai_configs.get(first.id).await.unwrap().is_default);

    let elected = s.ai_configs.set_default(first.id).await.unwrap();
    assert!(elected.is_default);
    assert_eq!(default_id(s).await, Some(first.id));
    assert_eq!(
        s.settings.default_ai_config_id().await.unwrap(),
        Some(first.id),
        "the settings' lookup sees the same default"
    );
    assert!(
        s.ai_configs.set_default(first.id).await.unwrap().is_default,
        "electing the default again keeps it"
    );

    let other = s.ai_configs.clear_default(second.id).await.unwrap();
    assert!(!other.is_default);
    assert_eq!(
        default_id(s).await,
        Some(first.id),
        "clearing another config changes nothing"
    );
    let cleared = s.ai_configs.clear_default(first.id).await.unwrap();
    assert!(!cleared.is_default);
    assert_eq!(default_id(s).await, None, "no one took the default over");
    let defaults = s.ai_configs.list().await.unwrap();
    assert!(defaults.iter().all(|c| !c.is_default));
}

async fn update_changes_only_what_it_names(s: &Stores) {
    let created = seed::ai_config(s).await;
    let renamed = s
        .ai_configs
        .update(
            created.id,
            AiConfigChanges {
                name: Some("renamed".into()),
                model: Some("gpt-4.1".into()),
                max_concurrency: Some(8),
                ..AiConfigChanges::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        (
            renamed.name.as_str(),
            renamed.model.as_str(),
            renamed.max_concurrency
        ),
        ("renamed", "gpt-4.1", 8)
    );
    assert_eq!(
        (
            &renamed.endpoint,
            &renamed.api_key,
            renamed.timeout_secs,
            renamed.input_price_per_mtok
        ),
        (
            &created.endpoint,
            &created.api_key,
            created.timeout_secs,
            created.input_price_per_mtok
        ),
        "what the changes leave out is kept"
    );
    assert!(renamed.updated_at > created.updated_at);
    assert_eq!(s.ai_configs.get(created.id).await.unwrap(), renamed);

    let cleared = s
        .ai_configs
        .update(
            created.id,
            AiConfigChanges {
                api_key: Some(None),
                input_price_per_mtok: Some(None),
                output_price_per_mtok: Some(Some(2.5)),
                endpoint: Some("http://localhost:11434/v1".into()),
                timeout_secs: Some(3_600),
                ..AiConfigChanges::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(cleared.api_key, None);
    assert_eq!(
        (cleared.input_price_per_mtok, cleared.output_price_per_mtok),
        (None, Some(2.5))
    );
    assert_eq!(
        (cleared.endpoint.as_str(), cleared.timeout_secs),
        ("http://localhost:11434/v1", 3_600)
    );

    let rekeyed = s
        .ai_configs
        .update(
            created.id,
            AiConfigChanges {
                api_key: Some(Some(SecretString::new("sk-new"))),
                ..AiConfigChanges::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(rekeyed.api_key, Some(SecretString::new("sk-new")));
    assert_eq!(s.ai_configs.get(created.id).await.unwrap(), rekeyed);
}

async fn list_is_in_creation_order(s: &Stores) {
    let a = seed::ai_config(s).await;
    let b = seed::ai_config(s).await;
    let ids: Vec<Uuid> = s
        .ai_configs
        .list()
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .filter(|id| [a.id, b.id].contains(id))
        .collect();
    assert_eq!(ids, [a.id, b.id]);
}

async fn bind(s: &Stores, project: ProjectId, config: Option<Uuid>) {
    s.projects
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

async fn deleting_unbinds_projects_and_hands_the_default_to_no_one(s: &Stores) {
    let config = s
        .ai_configs
        .create(seed::new_ai_config(true))
        .await
        .unwrap();
    let other = seed::ai_config(s).await;
    let (p1, p2, inheriting) = (
        seed::project(s).await,
        seed::project(s).await,
        seed::project(s).await,
    );
    bind(s, p2.id, Some(config.id)).await;
    bind(s, p1.id, Some(config.id)).await;
    bind(s, inheriting.id, Some(other.id)).await;
    bind(s, inheriting.id, None).await;

    let mut expected = vec![(p1.id, p1.full_path.clone()), (p2.id, p2.full_path.clone())];
    expected.sort_by(|a, b| a.1.cmp(&b.1));
    assert_eq!(
        s.ai_configs.projects_using(config.id).await.unwrap(),
        expected,
        "the bound projects by path; one that inherits the default is not among them"
    );
    assert!(
        s.ai_configs
            .projects_using(other.id)
            .await
            .unwrap()
            .is_empty()
    );

    s.ai_configs.delete(config.id).await.unwrap();
    assert_not_found(s.ai_configs.get(config.id).await);
    for project in [&p1, &p2] {
        assert_eq!(
            s.projects.get(project.id).await.unwrap().ai_config_id,
            None,
            "the project falls back to the default"
        );
    }
    assert_eq!(default_id(s).await, None, "the default is not handed on");
    assert!(!s.settings.ai_config_exists(config.id).await.unwrap());
    assert!(s.settings.ai_config_exists(other.id).await.unwrap());
    s.ai_configs.delete(other.id).await.unwrap();
}

async fn unknown_ids_are_not_found(s: &Stores) {
    let unknown = Uuid::new_v4();
    assert_not_found(s.ai_configs.get(unknown).await);
    assert_not_found(
        s.ai_configs
            .update(
                unknown,
                AiConfigChanges {
                    name: Some("x".into()),
                    ..AiConfigChanges::default()
                },
            )
            .await,
    );
    assert_not_found(s.ai_configs.set_default(unknown).await);
    assert_not_found(s.ai_configs.clear_default(unknown).await);
    assert_not_found(s.ai_configs.delete(unknown).await);
    assert!(
        s.ai_configs
            .projects_using(unknown)
            .await
            .unwrap()
            .is_empty()
    );
}
