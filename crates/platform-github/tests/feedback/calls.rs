//! What reading the threads costs, on github.com and on Enterprise Server.

use super::*;

#[tokio::test]
async fn resolution_is_read_from_graphql_beside_the_enterprise_rest_api() {
    let fake = FakeGithub::start(TOKEN).await;
    let (project, ids) = reviewed(&fake, &[reviewd_comment(2, "00000000000000d4")]).await;
    fake.resolve_as(REPO, ids[0], Some("alice"));
    fake.resolve_as(REPO, ids[0], None);

    let threads = platform(&fake.base_url())
        .comment_threads(&project, 5)
        .await
        .unwrap();
    assert_eq!(threads.len(), 1);
    assert_eq!(threads[0].resolved, None, "reopened");

    let requests = fake.requests().await;
    let graphql: Vec<&Request> = requests
        .iter()
        .filter(|r| r.url.path() == "/api/graphql")
        .collect();
    assert_eq!(
        graphql.len(),
        1,
        "REST under /api/v3, GraphQL at /api/graphql"
    );
    assert_eq!(graphql[0].method.as_str(), "POST");
    let body: Value = serde_json::from_slice(&graphql[0].body).unwrap();
    assert_eq!(
        body["variables"],
        json!({ "owner": "octo", "name": "feedback", "number": 5, "cursor": null })
    );
    let query = body["query"].as_str().unwrap();
    assert!(query.contains("reviewThreads"));
    // The current schema's id of a comment; `databaseId` is deprecated.
    assert!(
        query.contains("fullDatabaseId")
            && !query.replace("fullDatabaseId", "").contains("databaseId"),
        "{query}"
    );
}

#[tokio::test]
async fn a_pull_request_without_reviewd_threads_costs_one_call() {
    let fake = FakeGithub::start(TOKEN).await;
    let (project, _) = reviewed(&fake, &[]).await;
    let human = fake.comment_as(REPO, 5, "src/lib.rs", 2, "Nice.", "erin");
    fake.react_as(REPO, human, "heart", "alice").unwrap();
    let before = fake.requests().await.len();

    let threads = platform(&fake.base_url())
        .comment_threads(&project, 5)
        .await
        .unwrap();
    assert!(threads.is_empty());
    let made = requested_paths(&fake).await.split_off(before);
    assert_eq!(made, vec![format!("/api/v3/repos/{REPO}/pulls/5/comments")]);
}

#[tokio::test]
async fn an_unknown_pull_request_is_not_found() {
    let fake = FakeGithub::start(TOKEN).await;
    let (project, _) = reviewed(&fake, &[]).await;
    let err = platform(&fake.base_url())
        .comment_threads(&project, 999)
        .await
        .unwrap_err();
    assert!(matches!(err, PlatformError::NotFound(_)), "{err:?}");
}
