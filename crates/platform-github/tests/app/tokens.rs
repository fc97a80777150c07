//! Installation tokens minted again when they expire; keys that are not the App's.

use super::*;

#[tokio::test]
async fn an_expired_installation_token_is_minted_again_and_the_call_succeeds() {
    let (fake, api) = github().await;
    let platform = app(&fake);
    platform.get_merge_request(&api, 1).await.unwrap();

    fake.expire_all_tokens();
    let pull = platform.get_merge_request(&api, 1).await.unwrap();

    assert_eq!(pull.iid, 1);
    let mints = fake.mints();
    assert_eq!(mints.len(), 2);
    assert_ne!(mints[0].token, mints[1].token);
    // Octocrab sent the expired token, was refused, and sent the call again once
    // with the new one.
    let used = bearers_on(&fake, "/api/v3/repos/org/api/pulls/1").await;
    assert_eq!(
        used,
        [
            mints[0].token.clone(),
            mints[0].token.clone(),
            mints[1].token.clone()
        ]
    );
    platform.get_merge_request(&api, 1).await.unwrap();
    assert_eq!(fake.mint_count(), 2, "the new token is kept");
}

#[tokio::test]
async fn a_token_about_to_expire_is_replaced_before_it_is_used() {
    let (fake, api) = github().await;
    // Less than the 30 s octocrab keeps in hand.
    fake.token_ttl(Duration::from_secs(20));
    let platform = app(&fake);

    platform.get_merge_request(&api, 1).await.unwrap();
    platform.get_merge_request(&api, 1).await.unwrap();

    let mints = fake.mints();
    assert_eq!(mints.len(), 2);
    let used = bearers_on(&fake, "/api/v3/repos/org/api/pulls/1").await;
    assert_eq!(used, [mints[0].token.clone(), mints[1].token.clone()]);
}

#[tokio::test]
async fn a_key_that_is_not_the_apps_is_unauthorized() {
    let (fake, api) = github().await;
    let other = platform_with(&connection(&fake, FakeGithub::OTHER_PRIVATE_KEY, None));

    let identity = other.token_identity().await;
    assert!(
        matches!(identity, Err(PlatformError::Unauthorized(_))),
        "{identity:?}"
    );
    let pull = other.get_merge_request(&api, 1).await;
    assert!(
        matches!(pull, Err(PlatformError::Unauthorized(_))),
        "{pull:?}"
    );
    let projects = other.list_projects().await;
    assert!(
        matches!(projects, Err(PlatformError::Unauthorized(_))),
        "{projects:?}"
    );
    // Limited to one installation: the mint itself is refused.
    let one = platform_with(&connection(
        &fake,
        FakeGithub::OTHER_PRIVATE_KEY,
        Some(INSTALLATION),
    ));
    let pull = one.get_merge_request(&api, 1).await;
    assert!(
        matches!(pull, Err(PlatformError::Unauthorized(_))),
        "{pull:?}"
    );
    assert_eq!(fake.mint_count(), 0);
}

#[tokio::test]
async fn a_key_that_is_no_pem_is_unauthorized_without_a_call() {
    let (fake, api) = github().await;
    let garbage = platform_with(&connection(&fake, "-----BEGIN NOTHING-----\nxyz", None));
    let unauthorized = PlatformError::Unauthorized(NOT_A_KEY.into());

    assert_eq!(garbage.token_identity().await.unwrap_err(), unauthorized);
    assert_eq!(garbage.list_projects().await.unwrap_err(), unauthorized);
    assert_eq!(
        garbage.get_merge_request(&api, 1).await.unwrap_err(),
        unauthorized
    );
    assert_eq!(garbage.runner_token(&api).await.unwrap_err(), unauthorized);
    let app_calls = fake
        .requests()
        .await
        .iter()
        .filter(|r| r.url.path().contains("/app") || r.url.path().contains("/pulls"))
        .count();
    assert_eq!(app_calls, 0);
}
