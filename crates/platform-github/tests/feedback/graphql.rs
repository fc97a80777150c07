//! Resolved threads over every GraphQL page; errors answered with 200.

use super::*;

/// The GraphQL pages are followed by cursor, and a thread is matched to its
/// first comment by `fullDatabaseId` (a `BigInt`: a string).
#[tokio::test]
async fn resolved_threads_are_read_over_every_graphql_page() {
    let server = MockServer::start().await;
    token_user(&server).await;
    let body = format!("a remark\n\n{}", comment_marker("00000000000000f6"));
    Mock::given(method("GET"))
        .and(path("/api/v3/repos/octocat/Hello-World/pulls/7/comments"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!([
            { "id": 10, "body": body, "user": { "login": "reviewd-bot" },
              "reactions": { "url": "https://api.github.com/x", "total_count": 0, "+1": 0, "-1": 0 } },
            { "id": 11, "body": "not ours", "user": { "login": "octocat" },
              "reactions": { "total_count": 0 } },
        ])))
        .mount(&server)
        .await;
    let thread = |id: i64, resolved: bool| {
        json!({ "id": format!("PRRT_kwDO{id}"), "isResolved": resolved, "resolvedBy": resolved.then(|| json!({ "login": "octocat" })),
                "comments": { "nodes": [{ "fullDatabaseId": id.to_string() }] } })
    };
    let page = |nodes: Value, next: Option<&str>| {
        ResponseTemplate::new(200).set_body_json(json!({ "data": { "repository": { "pullRequest": {
            "reviewThreads": { "pageInfo": { "hasNextPage": next.is_some(), "endCursor": next.unwrap_or("Y3Vyc29yOnYyOpHOAAAAAw==") },
                               "nodes": nodes } } } } }))
    };
    Mock::given(method("POST"))
        .and(path("/api/graphql"))
        .and(body_partial_json(
            json!({ "variables": { "cursor": null } }),
        ))
        .respond_with(page(
            json!([thread(11, true)]),
            Some("Y3Vyc29yOnYyOpHOAAAAAQ=="),
        ))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/api/graphql"))
        .and(body_partial_json(
            json!({ "variables": { "cursor": "Y3Vyc29yOnYyOpHOAAAAAQ==" } }),
        ))
        .respond_with(page(json!([thread(10, true)]), None))
        .mount(&server)
        .await;
    let project = ProjectRef {
        id: "1296269".into(),
        full_path: "octocat/Hello-World".into(),
    };
    let threads = platform(&server.uri())
        .comment_threads(&project, 7)
        .await
        .unwrap();
    assert_eq!(
        threads,
        vec![CommentThread {
            body,
            resolved: Some(Resolution {
                username: Some("octocat".into())
            }),
            ..CommentThread::default()
        }]
    );
}

#[tokio::test]
async fn graphql_errors_answered_with_200_are_errors() {
    let server = MockServer::start().await;
    token_user(&server).await;
    let body = format!("a remark\n\n{}", comment_marker("00000000000000f7"));
    Mock::given(method("GET"))
        .and(path("/api/v3/repos/octocat/Hello-World/pulls/7/comments"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(
                json!([{ "id": 10, "body": body, "user": { "login": "reviewd-bot" } }]),
            ),
        )
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/api/graphql"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "data": null,
            "errors": [{ "type": "FORBIDDEN", "path": ["repository"], "locations": [{ "line": 2, "column": 3 }],
                         "message": "Resource not accessible by integration" }],
        })))
        .mount(&server)
        .await;
    let project = ProjectRef {
        id: "1296269".into(),
        full_path: "octocat/Hello-World".into(),
    };
    let err = platform(&server.uri())
        .comment_threads(&project, 7)
        .await
        .unwrap_err();
    assert_eq!(
        err,
        PlatformError::Forbidden("Resource not accessible by integration".into())
    );
}
