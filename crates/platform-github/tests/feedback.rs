//! Feedback on reviewd's line comments read back from GitHub: the threads they
//! started, with reactions, replies and resolution, against the fake GitHub where
//! other people react, reply and resolve.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reviewd_domain::model::diff::{
    CommentThread, InlineComment, Resolution, ThreadReaction, ThreadReply,
};
use reviewd_domain::model::{AuthType, PlatformConnection, PlatformType, SecretString};
use reviewd_domain::ports::{HostingPlatform, PlatformError, ProjectRef};
use reviewd_domain::review::markers::comment_marker;
use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_platform_github::GithubPlatform;
use reviewd_testkit::FakeGithub;
use reviewd_testkit::contract::hosting::FakeServer;
use reviewd_testkit::fakes::hosting::{MrFixture, ProjectFixture};
use serde_json::{Value, json};
use wiremock::matchers::{body_partial_json, method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const TOKEN: &str = "ghp_feedback";
const REPO: &str = "octo/feedback";
const DIFF: &str = "@@ -1,2 +1,6 @@\n a\n+b\n+c\n+d\n+e\n f\n";

fn platform(base_url: &str) -> GithubPlatform {
    let connection = PlatformConnection {
        platform_type: PlatformType::Github,
        base_url: base_url.to_owned(),
        auth_type: AuthType::Token,
        token: SecretString::new(TOKEN),
        app: None,
    };
    GithubPlatform::new(HttpClient::new(RetryPolicy::fast()).unwrap(), &connection)
}

fn reviewd_comment(line: u32, fingerprint: &str) -> InlineComment {
    InlineComment {
        file_path: "src/lib.rs".into(),
        old_path: None,
        line,
        body: format!(
            "**warning**: remark {fingerprint}\n\n{}",
            comment_marker(fingerprint)
        ),
        suggestion: None,
    }
}

/// A repository with PR #5 on the fake, and reviewd's comments posted on it
/// through the adapter: their ids, in the order given.
async fn reviewed(fake: &FakeGithub, comments: &[InlineComment]) -> (ProjectRef, Vec<u64>) {
    let mr = MrFixture::new(5).file("src/lib.rs", DIFF);
    let refs = mr.refs(PlatformType::Github);
    let project = fake.add_project(&ProjectFixture::new(REPO).mr(mr)).await;
    platform(&fake.base_url())
        .post_inline_comments(&project, 5, &refs, comments)
        .await
        .unwrap();
    let ids = fake
        .review_comments(REPO, 5)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    (project, ids)
}

fn reaction(name: &str, username: &str) -> ThreadReaction {
    ThreadReaction {
        name: name.into(),
        username: username.into(),
    }
}

async fn requested_paths(fake: &FakeGithub) -> Vec<String> {
    fake.requests()
        .await
        .iter()
        .map(|r| r.url.path().to_owned())
        .collect()
}

#[tokio::test]
async fn reviewd_threads_come_with_what_their_readers_did() {
    let fake = FakeGithub::start(TOKEN).await;
    let posted = [
        reviewd_comment(2, "00000000000000a1"),
        reviewd_comment(3, "00000000000000b2"),
        reviewd_comment(4, "00000000000000c3"),
    ];
    let (project, ids) = reviewed(&fake, &posted).await;
    let [judged, untouched, withdrawn] = ids[..] else {
        panic!("three comments posted: {ids:?}")
    };
    fake.react_as(REPO, judged, "+1", "alice").unwrap();
    fake.react_as(REPO, judged, "-1", "bob").unwrap();
    let reply = fake
        .reply_as(REPO, judged, "Won't fix: it is intended.", "carol")
        .unwrap();
    assert!(fake.resolve_as(REPO, judged, Some("alice")));
    let taken_back = fake.react_as(REPO, withdrawn, "heart", "dave").unwrap();
    assert!(fake.unreact(REPO, withdrawn, taken_back));
    // A thread a person started, with reactions and a reply of its own.
    let human = fake.comment_as(REPO, 5, "src/lib.rs", 5, "Why a loop here?", "erin");
    fake.react_as(REPO, human, "+1", "alice").unwrap();
    fake.reply_as(REPO, human, "Because.", "frank").unwrap();
    fake.resolve_as(REPO, human, Some("erin"));

    let threads = platform(&fake.base_url())
        .comment_threads(&project, 5)
        .await
        .unwrap();

    let expected = vec![
        CommentThread {
            body: posted[0].body.clone(),
            reactions: vec![reaction("+1", "alice"), reaction("-1", "bob")],
            replies: vec![ThreadReply {
                id: reply.to_string(),
                body: "Won't fix: it is intended.".into(),
                username: "carol".into(),
            }],
            resolved: Some(Resolution {
                username: Some("alice".into()),
            }),
        },
        CommentThread {
            body: posted[1].body.clone(),
            ..CommentThread::default()
        },
        CommentThread {
            body: posted[2].body.clone(),
            ..CommentThread::default()
        },
    ];
    assert_eq!(threads, expected);
    let reactions_read: Vec<String> = requested_paths(&fake)
        .await
        .into_iter()
        .filter(|p| p.ends_with("/reactions"))
        .collect();
    assert_eq!(
        reactions_read,
        vec![format!(
            "/api/v3/repos/{REPO}/pulls/comments/{judged}/reactions"
        )],
        "reactions are read only where the summary counts some, and never for a person's thread"
    );
    assert!(
        !reactions_read
            .iter()
            .any(|p| p.contains(&untouched.to_string()))
    );
}

/// Anyone who can comment can start a thread whose first comment carries a copy
/// of reviewd's marker, then judge it: only the threads the token's user started
/// are reviewd's, so the copy counts for nothing and the real one keeps its
/// signals.
#[tokio::test]
async fn a_thread_started_by_someone_else_with_a_copied_marker_is_not_reviewds() {
    let fake = FakeGithub::start(TOKEN).await;
    let real = reviewd_comment(2, "00000000000000aa");
    let (project, ids) = reviewed(&fake, std::slice::from_ref(&real)).await;
    fake.react_as(REPO, ids[0], "+1", "alice").unwrap();
    let copy = fake.comment_as(REPO, 5, "src/lib.rs", 3, &real.body, "mallory");
    fake.react_as(REPO, copy, "-1", "mallory").unwrap();
    fake.reply_as(REPO, copy, "Won't fix.", "mallory").unwrap();
    assert!(fake.resolve_as(REPO, copy, Some("mallory")));
    let before = fake.requests().await.len();

    let threads = platform(&fake.base_url())
        .comment_threads(&project, 5)
        .await
        .unwrap();

    assert_eq!(
        threads,
        vec![CommentThread {
            body: real.body.clone(),
            reactions: vec![reaction("+1", "alice")],
            ..CommentThread::default()
        }]
    );
    let made = requested_paths(&fake).await.split_off(before);
    assert_eq!(
        made.iter().filter(|p| *p == "/api/v3/user").count(),
        1,
        "who the token is, once: {made:?}"
    );
    assert!(
        !made
            .iter()
            .any(|p| p.contains(&format!("/comments/{copy}/"))),
        "{made:?}"
    );
}

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
    assert!(body["query"].as_str().unwrap().contains("reviewThreads"));
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

#[tokio::test]
async fn the_token_owner_reacts_and_replies_through_githubs_routes() {
    let fake = FakeGithub::start(TOKEN).await;
    let (project, ids) = reviewed(&fake, &[reviewd_comment(2, "00000000000000e5")]).await;
    let api = format!("{}/api/v3/repos/{REPO}", fake.base_url());
    let http = reqwest::Client::new();
    let react = || {
        http.post(format!("{api}/pulls/comments/{}/reactions", ids[0]))
            .bearer_auth(TOKEN)
            .json(&json!({ "content": "rocket" }))
            .send()
    };
    let created = react().await.unwrap();
    assert_eq!(created.status(), 201);
    let created: Value = created.json().await.unwrap();
    assert_eq!(
        (&created["content"], &created["user"]["login"]),
        (&json!("rocket"), &json!("reviewd-bot"))
    );
    let again = react().await.unwrap();
    assert_eq!(
        again.status(),
        200,
        "a reaction given before is answered again"
    );
    let refused = http
        .post(format!("{api}/pulls/comments/{}/reactions", ids[0]))
        .bearer_auth(TOKEN)
        .json(&json!({ "content": "thumbsup" }))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 422, "GitHub's names only");

    let replied = http
        .post(format!("{api}/pulls/5/comments/{}/replies", ids[0]))
        .bearer_auth(TOKEN)
        .json(&json!({ "body": "Fixed in the next push." }))
        .send()
        .await
        .unwrap();
    assert_eq!(replied.status(), 201);
    let replied: Value = replied.json().await.unwrap();
    assert_eq!(replied["in_reply_to_id"], json!(ids[0]));

    let listed: Value = http
        .get(format!("{api}/pulls/5/comments"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed[0]["reactions"]["total_count"], 1);
    assert_eq!(listed[0]["reactions"]["rocket"], 1);
    assert_eq!(listed[0]["user"]["login"], "reviewd-bot");
    assert!(listed[0].get("in_reply_to_id").is_none());
    assert_eq!(listed[1]["in_reply_to_id"], json!(ids[0]));

    let threads = platform(&fake.base_url())
        .comment_threads(&project, 5)
        .await
        .unwrap();
    assert_eq!(
        threads[0].reactions,
        vec![reaction("rocket", "reviewd-bot")]
    );
    assert_eq!(threads[0].replies[0].username, "reviewd-bot");

    let removed = http
        .delete(format!(
            "{api}/pulls/comments/{}/reactions/{}",
            ids[0], created["id"]
        ))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(removed.status(), 204);
    let threads = platform(&fake.base_url())
        .comment_threads(&project, 5)
        .await
        .unwrap();
    assert!(threads[0].reactions.is_empty());
}

/// `GET /user` on `server`: the token is `reviewd-bot`'s.
async fn token_user(server: &MockServer) {
    Mock::given(method("GET"))
        .and(path("/api/v3/user"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "login": "reviewd-bot", "id": 42, "node_id": "U_42", "type": "User", "site_admin": false,
            "name": "Reviewd Bot",
        })))
        .mount(server)
        .await;
}

/// The GraphQL pages are followed by cursor, and a thread is matched to its
/// first comment by `databaseId`.
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
        json!({ "isResolved": resolved, "resolvedBy": resolved.then(|| json!({ "login": "octocat" })),
                "comments": { "nodes": [{ "databaseId": id }] } })
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
