//! The `PlatformConfigRepository` contract: configs in creation order, at most one
//! default per platform type (handed on when the default is deleted), secrets kept,
//! and deleting a config deletes its projects.

use super::{Stores, seed};
use reviewd_domain::PageRequest;
use reviewd_domain::model::{
    AuthType, PipelineFilter, PlatformConfig, PlatformConfigChanges, PlatformType, SecretString,
};
use reviewd_domain::ports::RepoError;
use uuid::Uuid;

pub async fn run(s: &Stores) {
    // First: it needs to know every hostB config of the store.
    deleting_the_default_hands_it_to_the_oldest_remaining(s).await;
    one_default_per_type(s).await;
    create_get_and_update_keep_what_is_not_changed(s).await;
    list_filters_by_type_and_enabled_in_creation_order(s).await;
    deleting_a_config_deletes_its_projects(s).await;
    unknown_ids_are_not_found(s).await;
    an_app_config_keeps_its_key_and_installation(s).await;
}

async fn an_app_config_keeps_its_key_and_installation(s: &Stores) {
    let pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow...\n-----END RSA PRIVATE KEY-----";
    let created = s
        .platform_configs
        .create(reviewd_domain::model::NewPlatformConfig {
            auth_type: AuthType::App,
            access_token: None,
            app_id: Some("123456".into()),
            private_key: Some(SecretString::new(pem)),
            installation_id: Some(987),
            ..seed::new_platform_config(PlatformType::Github, false)
        })
        .await
        .unwrap();
    let read = s.platform_configs.get(created.id).await.unwrap();
    assert_eq!(read.auth_type, AuthType::App);
    assert_eq!(read.app_id.as_deref(), Some("123456"));
    assert_eq!(
        read.private_key.as_ref().map(SecretString::expose),
        Some(pem)
    );
    assert_eq!(read.installation_id, Some(987));
    assert_eq!(read.access_token, None);

    // A new key; every installation; the rest kept.
    let updated = s
        .platform_configs
        .update(
            created.id,
            PlatformConfigChanges {
                private_key: Some(Some(SecretString::new("-----BEGIN PRIVATE KEY-----"))),
                installation_id: Some(None),
                ..PlatformConfigChanges::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        updated.private_key.as_ref().map(SecretString::expose),
        Some("-----BEGIN PRIVATE KEY-----")
    );
    assert_eq!(updated.installation_id, None);
    assert_eq!(updated.app_id.as_deref(), Some("123456"));
}

async fn create(s: &Stores, platform_type: PlatformType, is_default: bool) -> PlatformConfig {
    s.platform_configs
        .create(seed::new_platform_config(platform_type, is_default))
        .await
        .expect("create a platform config")
}

async fn defaults(s: &Stores, platform_type: PlatformType) -> Vec<Uuid> {
    s.platform_configs
        .list(Some(platform_type), false)
        .await
        .unwrap()
        .into_iter()
        .filter(|c| c.is_default)
        .map(|c| c.id)
        .collect()
}

async fn deleting_the_default_hands_it_to_the_oldest_remaining(s: &Stores) {
    let first = create(s, PlatformType::Github, true).await;
    let second = create(s, PlatformType::Github, false).await;
    let third = create(s, PlatformType::Github, false).await;
    assert_eq!(
        s.platform_configs
            .delete_with_projects(first.id)
            .await
            .unwrap(),
        0
    );
    assert_eq!(defaults(s, PlatformType::Github).await, vec![second.id]);
    s.platform_configs
        .delete_with_projects(third.id)
        .await
        .unwrap();
    assert_eq!(
        defaults(s, PlatformType::Github).await,
        vec![second.id],
        "deleting another config keeps the default"
    );
    s.platform_configs
        .delete_with_projects(second.id)
        .await
        .unwrap();
    assert!(
        s.platform_configs
            .list(Some(PlatformType::Github), false)
            .await
            .unwrap()
            .is_empty()
    );
}

async fn one_default_per_type(s: &Stores) {
    let a = create(s, PlatformType::Gitlab, true).await;
    let b = create(s, PlatformType::Gitlab, true).await;
    assert_eq!(
        defaults(s, PlatformType::Gitlab).await,
        vec![b.id],
        "a new default replaces the old"
    );
    assert!(!s.platform_configs.get(a.id).await.unwrap().is_default);
    let other_type = create(s, PlatformType::Github, true).await;
    assert_eq!(defaults(s, PlatformType::Gitlab).await, vec![b.id]);
    assert_eq!(defaults(s, PlatformType::Github).await, vec![other_type.id]);

    let again = s.platform_configs.set_default(a.id).await.unwrap();
    assert!(again.is_default);
    assert_eq!(defaults(s, PlatformType::Gitlab).await, vec![a.id]);
    s.platform_configs
        .delete_with_projects(other_type.id)
        .await
        .unwrap();
}

async fn create_get_and_update_keep_what_is_not_changed(s: &Stores) {
    let created = create(s, PlatformType::Gitlab, false).await;
    let got = s.platform_configs.get(created.id).await.unwrap();
    assert_eq!(got.name, created.name);
    assert_eq!(got.access_token, Some(SecretString::new("glpat-secret")));
    assert_eq!(got.token_scopes, vec!["api".to_owned()]);
    assert_eq!((got.refresh_token, got.oauth_state), (None, None));

    let updated = s
        .platform_configs
        .update(
            created.id,
            PlatformConfigChanges {
                name: Some("renamed".into()),
                auth_type: Some(AuthType::OAuth),
                access_token: Some(None),
                refresh_token: Some(Some(SecretString::new("refresh"))),
                oauth_state: Some(Some("state-1".into())),
                enabled: Some(false),
                ..PlatformConfigChanges::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(updated.name, "renamed");
    assert_eq!(updated.auth_type, AuthType::OAuth);
    assert_eq!(updated.access_token, None, "Some(None) clears");
    assert_eq!(updated.refresh_token, Some(SecretString::new("refresh")));
    assert_eq!(updated.oauth_state.as_deref(), Some("state-1"));
    assert!(!updated.enabled);
    assert_eq!(updated.base_url, created.base_url, "None keeps");
    assert_eq!(updated.token_scopes, created.token_scopes);
    assert_eq!(updated.created_at, created.created_at);
    assert!(updated.updated_at >= created.updated_at);
    let reread = s.platform_configs.get(created.id).await.unwrap();
    assert_eq!(reread.refresh_token, updated.refresh_token);
}

async fn list_filters_by_type_and_enabled_in_creation_order(s: &Stores) {
    let enabled = create(s, PlatformType::Gitlab, false).await;
    let disabled = create(s, PlatformType::Gitlab, false).await;
    s.platform_configs
        .update(
            disabled.id,
            PlatformConfigChanges {
                enabled: Some(false),
                ..PlatformConfigChanges::default()
            },
        )
        .await
        .unwrap();
    let github = create(s, PlatformType::Github, false).await;

    let ids = |configs: Vec<PlatformConfig>| configs.into_iter().map(|c| c.id).collect::<Vec<_>>();
    let all = ids(s.platform_configs.list(None, false).await.unwrap());
    let position = |id: Uuid| all.iter().position(|&x| x == id).unwrap();
    assert!(position(enabled.id) < position(disabled.id));
    assert!(position(disabled.id) < position(github.id));

    let gitlab = ids(s
        .platform_configs
        .list(Some(PlatformType::Gitlab), false)
        .await
        .unwrap());
    assert!(gitlab.contains(&disabled.id) && !gitlab.contains(&github.id));
    let enabled_a = ids(s
        .platform_configs
        .list(Some(PlatformType::Gitlab), true)
        .await
        .unwrap());
    assert!(enabled_a.contains(&enabled.id) && !enabled_a.contains(&disabled.id));
    let enabled_any = ids(s.platform_configs.list(None, true).await.unwrap());
    assert!(enabled_any.contains(&github.id) && !enabled_any.contains(&disabled.id));
    s.platform_configs
        .delete_with_projects(github.id)
        .await
        .unwrap();
}

async fn deleting_a_config_deletes_its_projects(s: &Stores) {
    let config = seed::platform_config(s).await;
    let mut synced = Vec::new();
    for _ in 0..2 {
        let p = s
            .projects
            .upsert_synced(config.id, &seed::platform_project())
            .await
            .unwrap();
        synced.push(p);
    }
    let bystander = seed::project(s).await;
    seed::task(s, &synced[0], 1, "aaa").await;
    assert_eq!(
        s.platform_configs.count_projects(config.id).await.unwrap(),
        2
    );

    assert_eq!(
        s.platform_configs
            .delete_with_projects(config.id)
            .await
            .unwrap(),
        2
    );
    for p in &synced {
        assert!(matches!(
            s.projects.get(p.id).await,
            Err(RepoError::NotFound)
        ));
    }
    let tasks = s
        .projects
        .pipelines(
            &PipelineFilter {
                project_id: Some(synced[0].id),
                ..PipelineFilter::default()
            },
            PageRequest::new(1, 10, 10),
        )
        .await
        .unwrap();
    assert_eq!(tasks.total, 0, "the projects' tasks go with them");
    assert_eq!(
        s.platform_configs.count_projects(config.id).await.unwrap(),
        0
    );
    assert!(matches!(
        s.platform_configs.get(config.id).await,
        Err(RepoError::NotFound)
    ));
    assert!(s.projects.get(bystander.id).await.is_ok());
}

async fn unknown_ids_are_not_found(s: &Stores) {
    let id = Uuid::new_v4();
    let pc = &s.platform_configs;
    assert!(matches!(pc.get(id).await, Err(RepoError::NotFound)));
    assert!(matches!(
        pc.update(id, PlatformConfigChanges::default()).await,
        Err(RepoError::NotFound)
    ));
    assert!(matches!(pc.set_default(id).await, Err(RepoError::NotFound)));
    assert!(matches!(
        pc.delete_with_projects(id).await,
        Err(RepoError::NotFound)
    ));
    assert_eq!(pc.count_projects(id).await.unwrap(), 0);
}
