//! The `HostingPlatform` contract (`reviewd_testkit::contract::hosting`) against the
//! GitLab adapter talking to the fake GitLab, and the `PlatformOAuth` contract
//! (`contract::oauth`) against GitLab's OAuth2 flow on the same fake.

use reviewd_domain::ports::PlatformOAuth;
use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_platform_gitlab::{GitlabOAuth, GitlabPlatform};
use reviewd_testkit::FakeGitlab;
use reviewd_testkit::contract::hosting::{ServerWorld, run};
use reviewd_testkit::contract::oauth::{self, OAuthWorld};
use std::sync::Arc;

#[tokio::test]
async fn hosting_platform() {
    let fake = FakeGitlab::start("glpat-contract").await;
    let world = ServerWorld::new(fake, |connection| {
        let http = HttpClient::new(RetryPolicy::fast()).unwrap();
        Arc::new(GitlabPlatform::new(http, connection))
    });
    run(&world).await;
}

struct GitlabOAuthWorld {
    fake: FakeGitlab,
    oauth: GitlabOAuth,
}

#[async_trait::async_trait]
impl OAuthWorld for GitlabOAuthWorld {
    fn oauth(&self) -> &dyn PlatformOAuth {
        &self.oauth
    }

    fn base_url(&self) -> String {
        self.fake.base_url()
    }

    async fn approve(&self, redirect_uri: &str) -> String {
        self.fake.approve_oauth(redirect_uri)
    }

    async fn go_down(&self) {
        self.fake
            .fail("POST", "^/oauth/token$", 503, &[], u64::MAX)
            .await;
    }
}

#[tokio::test]
async fn platform_oauth() {
    let fake = FakeGitlab::start("glpat-contract").await;
    fake.with_oauth_app(oauth::APP_ID, oauth::APP_SECRET).await;
    let oauth = GitlabOAuth::new(HttpClient::new(RetryPolicy::fast()).unwrap());
    oauth::run(&GitlabOAuthWorld { fake, oauth }).await;
}
