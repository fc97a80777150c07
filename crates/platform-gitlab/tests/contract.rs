//! The `HostingPlatform` contract (`reviewd_testkit::contract::hosting`) against the
//! GitLab adapter talking to the fake GitLab.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use async_trait::async_trait;
use reviewd_domain::model::diff::FileDiff;
use reviewd_domain::model::{
    AuthType, PlatformConnection, PlatformType, SecretString, TokenIdentity,
};
use reviewd_domain::ports::{HostingPlatform, ProjectRef};
use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_platform_gitlab::GitlabPlatform;
use reviewd_testkit::FakeGitlab;
use reviewd_testkit::contract::hosting::{PlatformWorld, run};
use reviewd_testkit::fakes::hosting::{Posted, ProjectFixture};
use std::sync::Arc;

struct Gitlab {
    fake: FakeGitlab,
    platform: GitlabPlatform,
}

fn client(fake: &FakeGitlab, token: &str) -> GitlabPlatform {
    let connection = PlatformConnection {
        platform_type: PlatformType::HostA,
        base_url: fake.base_url(),
        auth_type: AuthType::Token,
        token: SecretString::new(token),
    };
    GitlabPlatform::new(HttpClient::new(RetryPolicy::fast()).unwrap(), &connection)
}

#[async_trait]
impl PlatformWorld for Gitlab {
    fn platform(&self) -> &dyn HostingPlatform {
        &self.platform
    }

    fn stranger(&self) -> Arc<dyn HostingPlatform> {
        Arc::new(client(&self.fake, "glpat-unknown"))
    }

    /// The user and scopes `FakeGitlab::start` serves.
    fn token_owner(&self) -> TokenIdentity {
        TokenIdentity {
            user_id: "7".into(),
            username: "reviewer-bot".into(),
            name: Some("Reviewer Bot".into()),
            scopes: Some(vec!["api".into(), "read_user".into()]),
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
    let fake = FakeGitlab::start("glpat-contract").await;
    let platform = client(&fake, "glpat-contract");
    run(&Gitlab { fake, platform }).await;
}
