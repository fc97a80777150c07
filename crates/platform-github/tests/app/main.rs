//! The adapter as a GitHub App against the fake GitHub: the App signs its own
//! calls with its JWT, each repository is reached through its installation's
//! token (minted once, minted again when it expires), runners get tokens of their
//! own, narrowed to one repository and read-only.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

mod identity;
mod runners_and_hooks;
mod threads;
mod tokens;

use reviewd_domain::model::diff::InlineComment;
use reviewd_domain::model::{
    AppCredentials, AuthType, PlatformConnection, PlatformType, SecretString,
};
use reviewd_domain::ports::{HostingPlatform, PlatformError, ProjectRef};
use reviewd_domain::review::markers::comment_marker;
use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_platform_github::GithubPlatform;
use reviewd_testkit::FakeGithub;
use reviewd_testkit::contract::hosting::FakeServer;
use reviewd_testkit::fakes::hosting::{MrFixture, Posted, ProjectFixture};
use serde_json::json;
use std::time::Duration;

const PAT: &str = "ghp_app_adapter";
const APP_ID: u64 = 4242;
const INSTALLATION: u64 = 77;
const DIFF: &str = "@@ -1,2 +1,6 @@\n a\n+b\n+c\n+d\n+e\n f\n";
const NOT_A_KEY: &str = "the GitHub App's private key is not a valid RSA key in PEM";

/// `org/api` (PR #1) and `org/web` in installation 77 (all of `org`),
/// `elsewhere/tool` in no installation.
async fn github() -> (FakeGithub, ProjectRef) {
    let fake = FakeGithub::start(PAT).await;
    fake.app(APP_ID, FakeGithub::APP_PUBLIC_KEY).await;
    let pull = MrFixture::new(1).file("src/lib.rs", DIFF);
    let api = fake
        .add_project(&ProjectFixture::new("org/api").mr(pull))
        .await;
    for repo in ["org/web", "elsewhere/tool"] {
        fake.add_project(&ProjectFixture::new(repo)).await;
    }
    fake.with_installation(INSTALLATION, "org", &[], false);
    (fake, api)
}

fn connection(fake: &FakeGithub, key: &str, installation_id: Option<u64>) -> PlatformConnection {
    PlatformConnection {
        platform_type: PlatformType::Github,
        base_url: fake.base_url(),
        auth_type: AuthType::App,
        token: SecretString::new(""),
        app: Some(AppCredentials {
            app_id: APP_ID,
            private_key: SecretString::new(key),
            installation_id,
        }),
    }
}

fn platform_with(connection: &PlatformConnection) -> GithubPlatform {
    GithubPlatform::new(HttpClient::new(RetryPolicy::fast()).unwrap(), connection)
}

fn app(fake: &FakeGithub) -> GithubPlatform {
    platform_with(&connection(fake, FakeGithub::APP_PRIVATE_KEY, None))
}

fn remark(line: u32) -> InlineComment {
    InlineComment {
        file_path: "src/lib.rs".into(),
        old_path: None,
        line,
        body: format!(
            "remark on line {line}\n\n{}",
            comment_marker(&format!("fp{line}"))
        ),
        suggestion: None,
    }
}

fn full_paths(projects: &[reviewd_domain::model::PlatformProject]) -> Vec<&str> {
    let mut paths: Vec<&str> = projects.iter().map(|p| p.full_path.as_str()).collect();
    paths.sort_unstable();
    paths
}

/// The bearer tokens the fake received on paths under `prefix`.
async fn bearers_on(fake: &FakeGithub, prefix: &str) -> Vec<String> {
    fake.requests()
        .await
        .iter()
        .filter(|r| r.url.path().starts_with(prefix))
        .filter_map(|r| {
            let value = r.headers.get("authorization")?.to_str().ok()?;
            value.strip_prefix("Bearer ").map(str::to_owned)
        })
        .collect()
}
