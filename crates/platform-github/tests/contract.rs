//! The `HostingPlatform` contract (`reviewd_testkit::contract::hosting`) against the
//! GitHub adapter talking to the fake GitHub.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use async_trait::async_trait;
use reviewd_domain::model::diff::FileDiff;
use reviewd_domain::model::{
    AuthType, PlatformConnection, PlatformType, SecretString, TokenIdentity,
};
use reviewd_domain::ports::{HostingPlatform, ProjectRef};
use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_platform_github::GithubPlatform;
use reviewd_testkit::FakeGithub;
use reviewd_testkit::contract::hosting::{PlatformWorld, run};
use reviewd_testkit::fakes::hosting::{Posted, ProjectFixture};
use std::sync::Arc;

struct Github {
    fake: FakeGithub,
    platform: GithubPlatform,
}

fn client(fake: &FakeGithub, token: &str) -> GithubPlatform {
    let connection = PlatformConnection {
        platform_type: PlatformType::HostB,
        base_url: fake.base_url(),
        auth_type: AuthType::Token,
        token: SecretString::new(token),
    };
    GithubPlatform::new(HttpClient::new(RetryPolicy::fast()).unwrap(), &connection)
}

#[async_trait]
impl PlatformWorld for Github {
    fn platform(&self) -> &dyn HostingPlatform {
        &self.platform
    }

    fn stranger(&self) -> Arc<dyn HostingPlatform> {
        Arc::new(client(&self.fake, "ghp_unknown"))
    }

    /// The user and scopes `FakeGithub::start` serves (classic-token scopes).
    fn token_owner(&self) -> TokenIdentity {
        TokenIdentity {
            user_id: "42".into(),
            username: "reviewd-bot".into(),
            name: Some("Reviewd Bot".into()),
            scopes: Some(vec!["repo".into(), "admin:repo_hook".into()]),
        }
    }

    async fn add_project(&self, project: &ProjectFixture) -> ProjectRef {
        self.fake.add_project(project).await
    }

    async fn add_compare(&self, project: &ProjectRef, from: &str, to: &str, files: &[FileDiff]) {
        self.fake.add_compare(project, from, to, files).await;
    }

    async fn posted(&self, project: &ProjectRef, iid: i64) -> Vec<Posted> {
        self.fake.posted(project, iid)
    }
}

#[tokio::test]
async fn hosting_platform() {
    let fake = FakeGithub::start("ghp_contract").await;
    let platform = client(&fake, "ghp_contract");
    run(&Github { fake, platform }).await;
}
