//! The GitHub adapter's wire behaviour for the review path.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reviewd_domain::model::diff::{ChangeType, DiffRefs, InlineComment, Suggestion};
use reviewd_domain::model::{AuthType, MrState, PlatformConnection, PlatformType, SecretString};
use reviewd_domain::ports::{HostingPlatform, PlatformError, ProjectRef};
use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_platform_github::GithubPlatform;
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn platform(server: &MockServer) -> GithubPlatform {
    let connection = PlatformConnection {
        platform_type: PlatformType::Github,
        base_url: server.uri(),
        auth_type: AuthType::Token,
        token: SecretString::new("ghp_x"),
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

fn pull(number: u64, state: &str, merged: bool) -> Value {
    json!({
        "number": number, "title": format!("PR {number}"), "body": null, "state": state,
        "merged_at": if merged { json!("2026-11-20T10:00:00Z") } else { Value::Null },
        "html_url": format!("https://github.com/octocat/Hello-World/pull/{number}"),
        "head": { "ref": "feature", "sha": "6dcb09b5b57875f334f61aebed695e2e4193db5e" },
        "base": { "ref": "main", "sha": "a10867b14bb761a232cd80139fbd4c0d33264240" },
        "user": { "login": "octocat", "id": 1 }, "draft": false,
        "created_at": "2026-11-19T10:00:00Z", "updated_at": "2026-11-20T10:00:00Z"
    })
}

#[tokio::test]
async fn reads_files_and_refs_with_the_api_headers() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/v3/repos/octocat/Hello-World/pulls/1347"))
        .and(header("authorization", "Bearer ghp_x"))
        .and(header("x-github-api-version", "2022-11-28"))
        .respond_with(ResponseTemplate::new(200).set_body_json(pull(1347, "open", false)))
        .mount(&server)
        .await;
    Mock::given(method("GET")).and(path("/api/v3/repos/octocat/Hello-World/pulls/1347/files"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!([
            { "sha": "1", "filename": "src/app.rs", "status": "modified", "additions": 1, "deletions": 0, "changes": 1, "patch": "@@ -1 +1,2 @@\n a\n+b" },
            { "sha": "2", "filename": "logo.png", "status": "added", "additions": 0, "deletions": 0, "changes": 0 },
            { "sha": "3", "filename": "lib/new.rs", "previous_filename": "lib/old.rs", "status": "renamed", "patch": "@@ -1 +1 @@\n-a\n+b" }
        ]))).mount(&server).await;
    let diff = platform(&server)
        .merge_request_diff(&repo(), 1347)
        .await
        .unwrap();
    assert_eq!(
        diff.refs.head_sha,
        "6dcb09b5b57875f334f61aebed695e2e4193db5e"
    );
    assert_eq!(diff.refs.base_sha, diff.refs.start_sha);
    assert_eq!(diff.files[1].change_type, ChangeType::New);
    assert!(
        diff.files[1].diff.is_none(),
        "binary files come without a patch"
    );
    assert_eq!(
        (diff.files[2].change_type, diff.files[2].old_path.as_deref()),
        (ChangeType::Renamed, Some("lib/old.rs"))
    );
}

#[tokio::test]
async fn posts_all_line_comments_in_one_review() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/v3/repos/octocat/Hello-World/pulls/1347/reviews"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(json!({ "id": 80, "state": "COMMENTED" })),
        )
        .mount(&server)
        .await;
    let refs = DiffRefs {
        base_sha: "b".into(),
        start_sha: "b".into(),
        head_sha: "h".into(),
    };
    let comments = [
        InlineComment {
            file_path: "src/app.rs".into(),
            old_path: None,
            line: 2,
            body: "one".into(),
            suggestion: Some(Suggestion {
                start_line: 2,
                end_line: 3,
                code: "fixed();".into(),
            }),
        },
        InlineComment {
            file_path: "src/app.rs".into(),
            old_path: None,
            line: 9,
            body: "two".into(),
            suggestion: None,
        },
    ];
    let ids = platform(&server)
        .post_inline_comments(&repo(), 1347, &refs, &comments)
        .await
        .unwrap();
    assert_eq!(ids, vec![None, None]);
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 1, "one review, not one call per comment");
    let body: Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(body["commit_id"], "h");
    assert_eq!(body["event"], "COMMENT");
    assert_eq!(
        body["body"], "reviewd: 2 comment(s) on `h`.",
        "GitHub's description requires a body with COMMENT"
    );
    assert_eq!(
        body["comments"][0],
        json!({ "path": "src/app.rs", "start_line": 2, "start_side": "RIGHT", "line": 3, "side": "RIGHT",
                "body": "one\n\n```suggestion\nfixed();\n```" }),
        "a suggestion's comment spans the lines it replaces"
    );
    assert_eq!(
        body["comments"][1],
        json!({ "path": "src/app.rs", "line": 9, "side": "RIGHT", "body": "two" })
    );
}

#[tokio::test]
async fn a_review_on_lines_outside_the_diff_is_rejected() {
    let server = MockServer::start().await;
    Mock::given(method("POST")).and(path("/api/v3/repos/octocat/Hello-World/pulls/1/reviews"))
        .respond_with(ResponseTemplate::new(422).set_body_json(json!({ "message": "Unprocessable Entity", "errors": ["Line could not be resolved"], "status": "422" })))
        .mount(&server).await;
    let refs = DiffRefs {
        base_sha: "b".into(),
        start_sha: "b".into(),
        head_sha: "h".into(),
    };
    let c = InlineComment {
        file_path: "x".into(),
        old_path: None,
        line: 1,
        body: "x".into(),
        suggestion: None,
    };
    assert!(matches!(
        platform(&server)
            .post_inline_comments(&repo(), 1, &refs, &[c])
            .await,
        Err(PlatformError::Rejected(_))
    ));
}

#[tokio::test]
async fn merged_is_closed_with_a_merge_and_rate_limits_are_reported() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/v3/repos/octocat/Hello-World/pulls"))
        .and(query_param("state", "closed"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!([pull(1, "closed", true), pull(2, "closed", false)])),
        )
        .mount(&server)
        .await;
    let gh = platform(&server);
    let merged = gh
        .list_merge_requests(&repo(), MrState::Merged, None, 1, 20)
        .await
        .unwrap();
    assert_eq!(
        merged.items.iter().map(|m| m.iid).collect::<Vec<_>>(),
        vec![1]
    );
    assert_eq!(merged.items[0].state, "merged");

    let limited = MockServer::start().await;
    let reset = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 3600)
        .to_string();
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(403)
                .set_body_json(json!({ "message": "API rate limit exceeded for user ID 1." }))
                .insert_header("x-ratelimit-remaining", "0")
                .insert_header("x-ratelimit-reset", reset.as_str()),
        )
        .mount(&limited)
        .await;
    let err = platform(&limited).token_identity().await.unwrap_err();
    assert!(
        matches!(err, PlatformError::RateLimited { retry_after: Some(d) } if d.as_secs() > 3000),
        "{err:?}"
    );
}

#[tokio::test]
async fn creates_repository_hooks_for_pr_and_comment_events() {
    let server = MockServer::start().await;
    Mock::given(method("POST")).and(path("/api/v3/repos/octocat/Hello-World/hooks"))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({ "id": 12345678, "config": { "url": "https://r.example/api/webhook/hostB", "content_type": "json" } })))
        .mount(&server).await;
    let hook = platform(&server)
        .create_webhook(
            &repo(),
            "https://r.example/api/webhook/hostB",
            Some("s3cret"),
        )
        .await
        .unwrap();
    assert_eq!(hook.id, "12345678");
    let body: Value =
        serde_json::from_slice(&server.received_requests().await.unwrap()[0].body).unwrap();
    assert_eq!(
        body["events"],
        json!([
            "pull_request",
            "issue_comment",
            "pull_request_review_comment",
            "pull_request_review_thread"
        ]),
        "threads resolved or reopened are feedback on reviewd's comments"
    );
    assert_eq!(body["config"]["secret"], "s3cret");
    assert_eq!(body["config"]["content_type"], "json");
}
