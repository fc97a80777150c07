//! A platform's OAuth2 authorization-code flow: the URL the browser is sent to, a
//! code exchanged once, refresh tokens that rotate, and outages told apart from
//! refusals. A world is the flow plus the provider behind it (a fake GitLab for the
//! HTTP adapter, the flow itself for [`FakeOAuth`](crate::fakes::hosting::FakeOAuth)).

use async_trait::async_trait;
use reviewd_domain::model::OAuthTokens;
use reviewd_domain::ports::{PlatformError, PlatformOAuth};
use std::collections::HashMap;

/// The application the flow runs as, registered with the provider.
pub const APP_ID: &str = "reviewd-app";
pub const APP_SECRET: &str = "app-secret-9f2c";

#[async_trait]
pub trait OAuthWorld: Sync {
    fn oauth(&self) -> &dyn PlatformOAuth;

    /// The provider's base URL.
    fn base_url(&self) -> String;

    /// A code the provider issued after the user approved, for `redirect_uri`.
    async fn approve(&self, redirect_uri: &str) -> String;

    /// The provider fails every token request from now on (5xx).
    async fn go_down(&self);
}

const REDIRECT: &str = "https://reviewd.example/oauth/callback?from=settings";

pub async fn run(world: &impl OAuthWorld) {
    the_authorize_url_carries_the_request_encoded(world);
    let tokens = a_code_is_exchanged_once(world).await;
    refresh_tokens_rotate(world, tokens).await;
    an_outage_is_unavailable_not_a_refusal(world).await;
}

fn the_authorize_url_carries_the_request_encoded(world: &impl OAuthWorld) {
    let base = world.base_url();
    let state = "st&te=1 +/?";
    let url = world
        .oauth()
        .authorize_url(&format!("{base}/"), APP_ID, REDIRECT, state);
    let (endpoint, query) = url.split_once('?').expect("a query");
    assert_eq!(endpoint, format!("{base}/oauth/authorize"), "one slash");
    let params: HashMap<String, String> = url::form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    assert_eq!(params["client_id"], APP_ID);
    assert_eq!(
        params["redirect_uri"], REDIRECT,
        "decodes to what was given"
    );
    assert_eq!(params["state"], state, "decodes to what was given");
    assert_eq!(params["response_type"], "code");
    assert!(params["scope"].split(' ').any(|s| s == "api"));
}

async fn exchange(world: &impl OAuthWorld, code: &str) -> Result<OAuthTokens, PlatformError> {
    world
        .oauth()
        .exchange_code(&world.base_url(), APP_ID, APP_SECRET, code, REDIRECT)
        .await
}

async fn refresh(world: &impl OAuthWorld, token: &str) -> Result<OAuthTokens, PlatformError> {
    world
        .oauth()
        .refresh(&world.base_url(), APP_ID, APP_SECRET, token)
        .await
}

async fn a_code_is_exchanged_once(world: &impl OAuthWorld) -> OAuthTokens {
    let code = world.approve(REDIRECT).await;
    let tokens = exchange(world, &code).await.unwrap();
    assert!(!tokens.access_token.expose().is_empty());
    assert!(
        tokens.refresh_token.is_some(),
        "a refresh token to renew with"
    );
    assert!(
        tokens.scopes.iter().any(|s| s == "api"),
        "{:?}",
        tokens.scopes
    );
    assert!(
        !format!("{tokens:?}").contains(tokens.access_token.expose()),
        "tokens never show in debug output"
    );

    let reused = exchange(world, &code).await.unwrap_err();
    assert!(matches!(reused, PlatformError::Rejected(_)), "{reused:?}");

    let other = exchange(world, &world.approve(REDIRECT).await)
        .await
        .unwrap();
    assert_ne!(
        other.access_token.expose(),
        tokens.access_token.expose(),
        "each grant its own token"
    );
    tokens
}

async fn refresh_tokens_rotate(world: &impl OAuthWorld, tokens: OAuthTokens) {
    let old = tokens.refresh_token.unwrap();
    let renewed = refresh(world, old.expose()).await.unwrap();
    assert_ne!(renewed.access_token.expose(), tokens.access_token.expose());
    let new = renewed.refresh_token.expect("a new refresh token");
    assert_ne!(new.expose(), old.expose(), "rotated");

    let spent = refresh(world, old.expose()).await.unwrap_err();
    assert!(matches!(spent, PlatformError::Rejected(_)), "{spent:?}");
    refresh(world, new.expose()).await.unwrap();
}

async fn an_outage_is_unavailable_not_a_refusal(world: &impl OAuthWorld) {
    let code = world.approve(REDIRECT).await;
    world.go_down().await;
    let down = exchange(world, &code).await.unwrap_err();
    assert!(matches!(down, PlatformError::Unavailable(_)), "{down:?}");
}
