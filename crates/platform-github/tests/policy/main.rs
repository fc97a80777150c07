//! reviewd's retry policy (docs/platforms.md §1) on the requests octocrab sends:
//! retries, the no-repeat rule for `POST`, rate limits, and what goes on the wire.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

mod headers;
mod rate_limits;
mod retries;

use reviewd_domain::model::diff::{DiffRefs, InlineComment};
use reviewd_domain::model::{AuthType, PlatformConnection, PlatformType, SecretString};
use reviewd_domain::ports::{HostingPlatform, PlatformError, ProjectRef};
use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_platform_github::GithubPlatform;
use serde_json::{Value, json};
use std::time::Duration;
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

const PULL: &str = "/api/v3/repos/octocat/Hello-World/pulls/1347";

fn platform(base_url: &str) -> GithubPlatform {
    let connection = PlatformConnection {
        platform_type: PlatformType::Github,
        base_url: base_url.to_owned(),
        auth_type: AuthType::Token,
        token: SecretString::new("ghp_policy"),
        app: None,
    };
    GithubPlatform::new(HttpClient::new(RetryPolicy::fast()).unwrap(), &connection)
}

fn repo() -> ProjectRef {
    ProjectRef {
        id: "1296269".into(),
        full_path: "octocat/Hello-World".into(),
    }
}

fn pull() -> Value {
    json!({
        "number": 1347, "title": "Amazing new feature", "body": null, "state": "open", "merged_at": null,
        "html_url": "https://github.com/octocat/Hello-World/pull/1347",
        "head": { "ref": "new-topic", "sha": "6dcb09b5b57875f334f61aebed695e2e4193db5e" },
        "base": { "ref": "master", "sha": "a10867b14bb761a232cd80139fbd4c0d33264240" },
        "user": { "login": "octocat", "id": 1 }, "draft": false,
        "created_at": "2011-01-26T19:01:12Z", "updated_at": "2011-01-26T19:01:12Z"
    })
}

async fn requests_to(server: &MockServer, route: &str) -> usize {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| r.url.path() == route)
        .count()
}
