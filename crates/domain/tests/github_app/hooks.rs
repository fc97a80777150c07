//! An App's projects get no repository hook; a webhook names the configs its secret proves.

use super::*;

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
