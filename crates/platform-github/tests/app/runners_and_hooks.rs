//! Runners' own read-only tokens, and webhooks set in the App's settings.

use super::*;

#[tokio::test]
async fn a_runner_gets_a_token_of_its_own_for_the_repository_read_only() {
    let (fake, api) = github().await;
    let platform = app(&fake);
    platform.get_merge_request(&api, 1).await.unwrap();

    let runner = platform.runner_token(&api).await.unwrap().unwrap();

    let mints = fake.mints();
    assert_eq!(mints.len(), 2);
    let (adapter, minted) = (&mints[0], &mints[1]);
    assert_eq!(minted.token, runner.token.expose());
    assert_ne!(runner.token.expose(), adapter.token);
    assert_eq!(minted.installation_id, INSTALLATION);
    assert_eq!(minted.repositories, Some(vec!["org/api".to_owned()]));
    assert_eq!(
        minted.permissions,
        json!({ "contents": "read", "metadata": "read" })
    );
    assert_eq!(runner.expires_at.timestamp(), minted.expires_at.timestamp());
    // The adapter keeps its own token.
    platform.get_merge_request(&api, 1).await.unwrap();
    assert_eq!(fake.mint_count(), 2);
    let used = bearers_on(&fake, "/api/v3/repos/org/api/pulls/1").await;
    assert!(used.iter().all(|t| *t == adapter.token), "{used:?}");

    // What the runner's token reaches: that repository, to read.
    let client = reqwest::Client::new();
    let status = |route: &str| {
        let request = client
            .get(format!("{}/api/v3{route}", fake.base_url()))
            .bearer_auth(runner.token.expose())
            .send();
        async move { request.await.unwrap().status().as_u16() }
    };
    assert_eq!(status("/repos/org/api").await, 200);
    assert_eq!(status("/repos/org/web").await, 404);
}

#[tokio::test]
async fn token_configs_give_runners_no_token_of_their_own() {
    let (fake, api) = github().await;
    let connection = PlatformConnection {
        platform_type: PlatformType::Github,
        base_url: fake.base_url(),
        auth_type: AuthType::Token,
        token: SecretString::new(PAT),
        app: None,
    };

    let runner = platform_with(&connection).runner_token(&api).await.unwrap();

    assert!(runner.is_none());
    assert_eq!(fake.mint_count(), 0);
}

#[tokio::test]
async fn webhooks_are_set_in_the_apps_settings() {
    let (fake, api) = github().await;
    let platform = app(&fake);
    let unsupported =
        PlatformError::Unsupported("hostB App: its webhook is set in the App's settings");

    assert_eq!(platform.list_webhooks(&api).await.unwrap_err(), unsupported);
    assert_eq!(
        platform
            .create_webhook(
                &api,
                "https://reviewd.example.com/api/webhooks/hostb",
                Some("s")
            )
            .await
            .unwrap_err(),
        unsupported
    );
    assert_eq!(
        platform.delete_webhook(&api, "1").await.unwrap_err(),
        unsupported
    );
    assert!(
        bearers_on(&fake, "/api/v3/repos/org/api/hooks")
            .await
            .is_empty()
    );
}
