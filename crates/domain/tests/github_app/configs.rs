//! What a GitHub App config needs.

use super::*;

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
