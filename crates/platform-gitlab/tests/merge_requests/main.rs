//! The GitLab adapter's wire behaviour for the review path: diffs, positioned
//! discussions, notes, assignment.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

mod assignment;
mod diffs;
mod posting;

use reviewd_domain::model::diff::{ChangeType, DiffRefs, InlineComment, Suggestion};
use reviewd_domain::model::{AuthType, PlatformConnection, SecretString};
use reviewd_domain::ports::{HostingPlatform, PlatformError, ProjectRef};
use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_platform_gitlab::GitlabPlatform;
use reviewd_testkit::FakeGitlab;
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn platform(server: &MockServer, auth_type: AuthType) -> GitlabPlatform {
    let connection = PlatformConnection {
        platform_type: reviewd_domain::model::PlatformType::Gitlab,
        base_url: server.uri(),
        auth_type,
        token: SecretString::new("tok"),
        app: None,
    };
    GitlabPlatform::new(HttpClient::new(RetryPolicy::fast()).unwrap(), &connection)
}

fn project() -> ProjectRef {
    ProjectRef {
        id: "42".into(),
        full_path: "group/app".into(),
    }
}

fn mr_json() -> Value {
    json!({
        "id": 900, "iid": 7, "title": "Add parser", "description": "d", "state": "opened",
        "web_url": "https://gitlab.example.com/group/app/-/merge_requests/7",
        "source_branch": "parser", "target_branch": "main",
        "author": { "id": 3, "username": "dev", "name": "Dev" }, "sha": "head1", "draft": false,
        "diff_refs": { "base_sha": "base1", "head_sha": "head1", "start_sha": "start1" },
        "created_at": "2026-11-20T10:00:00.000Z", "updated_at": "2026-11-21T10:00:00.000Z"
    })
}
