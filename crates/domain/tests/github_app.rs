//! GitHub App configs on the in-memory adapters: what a config must hold, which
//! connection its platform is reached through, how installation events keep the
//! project list current, and why its projects get no repository hook.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reviewd_domain::model::{
    AuthType, InstallationChange, InstallationEvent, PlatformConfig, PlatformType, SecretString,
    WebhookProof,
};
use reviewd_domain::ports::HostingPlatform;
use reviewd_domain::services::{
    InstallationSync, OAuthSettings, PlatformConfigInput, PlatformConfigService, ProjectService,
    ServiceError, UnknownSender, WebhookService,
};
use reviewd_testkit::MemoryStore;
use reviewd_testkit::contract::Stores;
use reviewd_testkit::fakes::hosting::{ProjectFixture, ScriptedClients, ScriptedPlatform};
use reviewd_testkit::fakes::{FakeClock, FakeTokenHasher, FakeWebhookVerifier};
use std::sync::Arc;
use uuid::Uuid;

const PEM: &str =
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----";

struct World {
    stores: Stores,
    platform: ScriptedPlatform,
    clients: Arc<ScriptedClients>,
    configs: PlatformConfigService,
    projects: Arc<ProjectService>,
}

fn world() -> World {
    let store = MemoryStore::new(Arc::new(FakeClock::default()));
    let stores = Stores::memory(&store);
    let platform = ScriptedPlatform::new(PlatformType::Github);
    let clients = Arc::new(ScriptedClients::new(platform.clone()));
    let configs = PlatformConfigService::new(
        stores.platform_configs.clone(),
        clients.clone(),
        Arc::new(FakeTokenHasher::default()),
        Arc::new(FakeWebhookVerifier),
        OAuthSettings {
            allowed_redirect_origins: vec![],
        },
    );
    let projects = Arc::new(ProjectService::new(
        stores.projects.clone(),
        stores.platform_configs.clone(),
        stores.settings.clone(),
        clients.clone(),
    ));
    World {
        stores,
        platform,
        clients,
        configs,
        projects,
    }
}

fn app_input(installation_id: Option<i64>) -> PlatformConfigInput {
    PlatformConfigInput {
        name: "GitHub App".into(),
        platform_type: PlatformType::Github,
        base_url: "https://github.com".into(),
        auth_type: Some(AuthType::App),
        access_token: None,
        app_id: Some("4242".into()),
        app_secret: None,
        webhook_secret: Some("app-hook-secret".into()),
        enabled: None,
        is_default: None,
        private_key: Some(PEM.into()),
        installation_id,
    }
}

fn fields(err: ServiceError) -> Vec<String> {
    match err {
        ServiceError::Invalid(fields) => fields.into_iter().map(|f| f.field).collect(),
        other => panic!("not a field error: {other:?}"),
    }
}

#[tokio::test]
async fn an_app_config_needs_a_numeric_id_and_a_pem_key_on_github() {
    let w = world();
    let bad = [
        (
            PlatformConfigInput {
                platform_type: PlatformType::Gitlab,
                ..app_input(None)
            },
            "authType",
        ),
        (
            PlatformConfigInput {
                app_id: None,
                ..app_input(None)
            },
            "appId",
        ),
        (
            PlatformConfigInput {
                app_id: Some("my-app".into()),
                ..app_input(None)
            },
            "appId",
        ),
        (
            PlatformConfigInput {
                private_key: Some("ghp_not_a_key".into()),
                ..app_input(None)
            },
            "privateKey",
        ),
        (
            PlatformConfigInput {
                private_key: None,
                ..app_input(None)
            },
            "privateKey",
        ),
        (app_input(Some(0)), "installationId"),
    ];
    for (input, field) in bad {
        let err = w.configs.create(input).await.unwrap_err();
        assert!(fields(err).contains(&field.to_owned()), "{field}");
    }
    assert!(
        w.stores
            .platform_configs
            .list(None, false)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        w.clients.connections().is_empty(),
        "nothing invalid reaches GitHub"
    );

    let config = w.configs.create(app_input(Some(77))).await.unwrap();
    assert_eq!(config.auth_type, AuthType::App);
    assert_eq!(config.access_token, None);
    assert_eq!(
        config.private_key.as_ref().map(SecretString::expose),
        Some(PEM)
    );
    // The App was asked who it is, signed with its key, before it was stored.
    let asked = w.clients.connections();
    let app = asked.last().unwrap().app.as_ref().unwrap();
    assert_eq!(
        (app.app_id, app.private_key.expose(), app.installation_id),
        (4242, PEM, Some(77))
    );

    // A rejected key is a field error, and nothing changes.
    w.platform.fail_next(
        reviewd_testkit::fakes::hosting::Op::TokenIdentity,
        reviewd_domain::ports::PlatformError::Unauthorized(
            "A JSON web token could not be decoded".into(),
        ),
    );
    let err = w
        .configs
        .update(
            config.id,
            reviewd_domain::services::PlatformConfigPatch {
                private_key: Some(PEM.replace("MIIE", "MIIF")),
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(fields(err), ["privateKey"]);
    let kept = w.stores.platform_configs.get(config.id).await.unwrap();
    assert_eq!(
        kept.private_key.as_ref().map(SecretString::expose),
        Some(PEM)
    );

    // Another address: the stored key is not sent there unless typed again.
    let asked_before = w.clients.connections().len();
    let moved = reviewd_domain::services::PlatformConfigPatch {
        base_url: Some("https://github.attacker.example".into()),
        ..Default::default()
    };
    let err = w
        .configs
        .update(config.id, moved.clone())
        .await
        .unwrap_err();
    assert_eq!(fields(err), ["privateKey"]);
    assert_eq!(
        w.clients.connections().len(),
        asked_before,
        "nothing was signed for it"
    );
    let retyped = reviewd_domain::services::PlatformConfigPatch {
        private_key: Some(PEM.into()),
        ..moved
    };
    let updated = w.configs.update(config.id, retyped).await.unwrap();
    assert_eq!(updated.base_url, "https://github.attacker.example");

    // The same for a token config.
    let token = w
        .configs
        .create(PlatformConfigInput {
            name: "PAT".into(),
            auth_type: Some(AuthType::Token),
            access_token: Some("ghp_stored".into()),
            private_key: None,
            app_id: None,
            ..app_input(None)
        })
        .await
        .unwrap();
    let err = w
        .configs
        .update(
            token.id,
            reviewd_domain::services::PlatformConfigPatch {
                base_url: Some("https://elsewhere.example".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(fields(err), ["accessToken"]);
}

async fn synced_app(w: &World, installation_id: Option<i64>) -> PlatformConfig {
    let config = w.configs.create(app_input(installation_id)).await.unwrap();
    w.projects.sync(config.id).await.unwrap();
    config
}

fn event(installation_id: i64, change: InstallationChange) -> InstallationEvent {
    InstallationEvent {
        installation_id,
        app_id: Some(4242),
        change,
    }
}

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

#[tokio::test]
async fn an_app_projects_get_no_repository_hook_and_keep_their_state() {
    let w = world();
    w.platform.add_project(ProjectFixture::new("octo/a"));
    let config = synced_app(&w, None).await;
    let project = w.stores.projects.list_all().await.unwrap().remove(0);
    assert_eq!(project.platform_config_id, config.id);
    let webhooks = WebhookService::new(
        w.stores.projects.clone(),
        w.stores.platform_configs.clone(),
        w.clients.clone(),
        "https://reviewd.example.com",
    );
    let results = webhooks.create_many(&[project.id], None).await.unwrap();
    assert!(!results[0].success);
    assert!(
        results[0]
            .error
            .as_deref()
            .unwrap()
            .contains("App's own webhook"),
        "{results:?}"
    );
    let summary = webhooks.verify_all().await.unwrap();
    assert_eq!(summary.checked, 1);
    let after = w.stores.projects.get(project.id).await.unwrap();
    assert_eq!(after.webhook_status, None, "neither error nor checked");
    assert!(
        w.platform.calls().iter().all(|op| !matches!(
            op,
            reviewd_testkit::fakes::hosting::Op::ListWebhooks
                | reviewd_testkit::fakes::hosting::Op::CreateWebhook
        )),
        "no repository hook is asked for"
    );
    // The platform is reached through the App's credentials, never a token.
    let connection = w.clients.connections().pop().unwrap();
    assert!(connection.app.is_some() && connection.token.expose().is_empty());
    let _: &dyn HostingPlatform = &w.platform;
}

#[tokio::test]
async fn a_webhook_names_the_enabled_configs_whose_secret_its_proof_matches() {
    let w = world();
    let body = br#"{"action":"opened"}"#;
    let signed = |secret: &str| FakeWebhookVerifier::sign(secret, body);
    let proof = |hex: &'static str| WebhookProof::Signature {
        hex,
        body: &body[..],
    };
    let none = w
        .configs
        .webhook_senders(PlatformType::Github, proof("anything"))
        .await
        .unwrap();
    assert_eq!(none, Err(UnknownSender::NoConfig), "nothing is set up yet");

    let app = w.configs.create(app_input(Some(7))).await.unwrap();
    let good = signed("app-hook-secret");
    let senders = w
        .configs
        .webhook_senders(
            PlatformType::Github,
            WebhookProof::Signature { hex: &good, body },
        )
        .await
        .unwrap();
    assert_eq!(senders, Ok(vec![app.id]));

    let wrong = signed("another-secret");
    let tampered = w
        .configs
        .webhook_senders(
            PlatformType::Github,
            WebhookProof::Signature { hex: &wrong, body },
        )
        .await
        .unwrap();
    assert_eq!(tampered, Err(UnknownSender::NoMatch));
    let other_platform = w
        .configs
        .webhook_senders(PlatformType::Gitlab, WebhookProof::Token("app-hook-secret"))
        .await
        .unwrap();
    assert_eq!(
        other_platform,
        Err(UnknownSender::NoConfig),
        "a hostB secret proves nothing on hostA"
    );
}
