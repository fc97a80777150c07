//! The `HostingPlatform` contract (`reviewd_testkit::contract::hosting`) against the
//! GitHub adapter talking to the fake GitHub.

use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_platform_github::GithubPlatform;
use reviewd_testkit::FakeGithub;
use reviewd_testkit::contract::hosting::{ServerWorld, run};
use std::sync::Arc;

#[tokio::test]
async fn hosting_platform() {
    let fake = FakeGithub::start("ghp_contract").await;
    let world = ServerWorld::new(fake, |connection| {
        let http = HttpClient::new(RetryPolicy::fast()).unwrap();
        Arc::new(GithubPlatform::new(http, connection))
    });
    run(&world).await;
}
