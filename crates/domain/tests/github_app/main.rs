//! GitHub App configs on the in-memory adapters: what a config must hold, which
//! connection its platform is reached through, how installation events keep the
//! project list current, and why its projects get no repository hook.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

mod configs;
mod hooks;
mod installations;

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
