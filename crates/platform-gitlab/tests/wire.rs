//! Calls built by the `gitlab` crate still go through reviewd's HTTP policy: GitLab's
//! errors keep their port variants, a rate limit its hint, and a refused `POST` is
//! never sent twice.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reviewd_domain::model::diff::{DiffRefs, InlineComment};
use reviewd_domain::model::{AuthType, PlatformConnection, PlatformType, SecretString};
use reviewd_domain::ports::{HostingPlatform, PlatformError, ProjectRef};
use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_platform_gitlab::GitlabPlatform;
use serde_json::json;
use std::time::Duration;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn platform(server: &MockServer) -> GitlabPlatform {
    let connection = PlatformConnection {
        platform_type: PlatformType::Gitlab,
        base_url: format!("{}/", server.uri()),
        auth_type: AuthType::Token,
        token: SecretString::new("tok"),
        app: None,
    };
    GitlabPlatform::new(HttpClient::new(RetryPolicy::fast()).unwrap(), &connection)
}

fn project(id: &str) -> ProjectRef {
    ProjectRef {
        id: id.into(),
        full_path: "group/app".into(),
    }
}

#[tokio::test]
async fn errors_keep_their_variants_and_paths_are_escaped() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/group%2Fapp"))
        .respond_with(
            ResponseTemplate::new(404).set_body_json(json!({ "message": "404 Project Not Found" })),
        )
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/42"))
        .respond_with(ResponseTemplate::new(429).insert_header("retry-after", "60"))
        .mount(&server)
        .await;
    let gitlab = platform(&server);

    let missing = gitlab.get_project(&project("group/app")).await.unwrap_err();
    assert!(
        matches!(&missing, PlatformError::NotFound(m) if m == "404 Project Not Found"),
        "{missing:?}"
    );
    let limited = gitlab.get_project(&project("42")).await.unwrap_err();
    assert!(
        matches!(
            limited,
            PlatformError::RateLimited {
                retry_after: Some(d)
            } if d == Duration::from_secs(60)
        ),
        "{limited:?}"
    );
    let hook = gitlab.delete_webhook(&project("42"), "five").await;
    assert!(matches!(hook, Err(PlatformError::Rejected(_))), "{hook:?}");
}

#[tokio::test]
async fn a_discussion_answered_503_is_sent_once() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/v4/projects/42/merge_requests/7/discussions"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&server)
        .await;
    let refs = DiffRefs {
        base_sha: "b".into(),
        start_sha: "s".into(),
        head_sha: "h".into(),
    };
    let comment = InlineComment {
        file_path: "a.rs".into(),
        old_path: None,
        line: 1,
        body: "x".into(),
        suggestion: None,
    };
    let err = platform(&server)
        .post_inline_comments(&project("42"), 7, &refs, &[comment])
        .await
        .unwrap_err();
    assert!(matches!(err, PlatformError::Unavailable(_)), "{err:?}");
    let sent = server.received_requests().await.unwrap();
    assert_eq!(sent.len(), 1, "a POST that may have landed is not repeated");
    assert_eq!(
        sent[0].headers.get("content-type").unwrap(),
        "application/x-www-form-urlencoded"
    );
    assert_eq!(sent[0].headers.get("private-token").unwrap(), "tok");
}
