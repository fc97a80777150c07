//! The `HostingPlatform` contract (`reviewd_testkit::contract::hosting`) against the
//! GitLab adapter talking to the fake GitLab.

use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_platform_gitlab::GitlabPlatform;
use reviewd_testkit::FakeGitlab;
use reviewd_testkit::contract::hosting::{ServerWorld, run};
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
