//! Installation events sync, enable and disable the App's projects.

use super::*;

#[tokio::test]
async fn installation_events_sync_enable_and_disable_the_apps_projects() {
    let w = world();
    let a = w.platform.add_project(ProjectFixture::new("octo/a"));
    let b = w.platform.add_project(ProjectFixture::new("octo/b"));
    let every = synced_app(&w, None).await;
    let only_other = synced_app(&w, Some(9)).await;
    let sync = InstallationSync::new(
        w.projects.clone(),
        w.stores.projects.clone(),
        w.stores.platform_configs.clone(),
    );
    let enabled = |config: Uuid| {
        let projects = w.stores.projects.clone();
        async move {
            let mut on: Vec<String> = projects
                .list_all()
                .await
                .unwrap()
                .into_iter()
                .filter(|p| p.platform_config_id == config && p.enabled)
                .map(|p| p.full_path)
                .collect();
            on.sort();
            on
        }
    };
    assert_eq!(enabled(every.id).await, ["octo/a", "octo/b"]);

    // Repository b removed from installation 5: its project is disabled, for the
    // config of every installation only.
    let configs = [every.id, only_other.id];
    let removed = event(
        5,
        InstallationChange::Unavailable {
            repository_ids: vec![b.id.clone()],
        },
    );
    let report = sync.apply(&configs, &removed).await.unwrap();
    assert_eq!((report.configs, report.disabled), (1, 1));
    assert_eq!(enabled(every.id).await, ["octo/a"]);
    assert_eq!(enabled(only_other.id).await, ["octo/a", "octo/b"]);

    // Added back, with a new repository c: synced, and b enabled again.
    w.platform.add_project(ProjectFixture::new("octo/c"));
    let added = event(
        5,
        InstallationChange::Available {
            repository_ids: vec![b.id.clone()],
        },
    );
    let report = sync.apply(&configs, &added).await.unwrap();
    assert_eq!((report.synced, report.enabled), (3, 1));
    assert_eq!(enabled(every.id).await, ["octo/a", "octo/b", "octo/c"]);

    // Suspended (GitHub names no repository, and mints no token): every project
    // the App no longer reaches is disabled; unsuspended, enabled again.
    let configs_every = [every.id];
    w.platform.fail_next(
        reviewd_testkit::fakes::hosting::Op::ListProjects,
        reviewd_domain::ports::PlatformError::Forbidden(
            "This installation has been suspended".into(),
        ),
    );
    let suspended = event(
        5,
        InstallationChange::Unavailable {
            repository_ids: vec![],
        },
    );
    let report = sync.apply(&configs_every, &suspended).await.unwrap();
    assert_eq!(report.disabled, 3);
    assert!(enabled(every.id).await.is_empty());
    // An outage while checking disables nothing.
    w.platform.fail_next(
        reviewd_testkit::fakes::hosting::Op::ListProjects,
        reviewd_domain::ports::PlatformError::Unavailable("502".into()),
    );
    assert!(sync.apply(&configs_every, &suspended).await.is_err());
    let unsuspended = event(
        5,
        InstallationChange::Available {
            repository_ids: vec![],
        },
    );
    let report = sync.apply(&configs_every, &unsuspended).await.unwrap();
    assert_eq!(report.enabled, 3);
    // Another App's installation, though signed with the same secret: untouched.
    let other_app = InstallationEvent {
        app_id: Some(999),
        ..event(
            5,
            InstallationChange::Unavailable {
                repository_ids: vec![a.id.clone()],
            },
        )
    };
    assert_eq!(
        sync.apply(&configs_every, &other_app)
            .await
            .unwrap()
            .configs,
        0
    );

    // A config that did not sign the delivery, or a token config, is not touched.
    let token = w
        .configs
        .create(PlatformConfigInput {
            auth_type: Some(AuthType::Token),
            access_token: Some("ghp_x".into()),
            private_key: None,
            app_id: None,
            ..app_input(None)
        })
        .await
        .unwrap();
    w.projects.sync(token.id).await.unwrap();
    let gone = event(
        9,
        InstallationChange::Unavailable {
            repository_ids: vec![a.id.clone()],
        },
    );
    let report = sync.apply(&[token.id, only_other.id], &gone).await.unwrap();
    assert_eq!((report.configs, report.disabled), (1, 1));
    assert_eq!(enabled(token.id).await, ["octo/a", "octo/b", "octo/c"]);
    assert_eq!(enabled(every.id).await, ["octo/a", "octo/b", "octo/c"]);
}
