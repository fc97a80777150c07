//! reviewd's retry policy (docs/platforms.md §1) on the requests octocrab sends:
//! retries, the no-repeat rule for `POST`, rate limits, and what goes on the wire.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

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

#[tokio::test]
async fn a_get_answered_502_is_sent_again() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(PULL))
        .respond_with(ResponseTemplate::new(502).set_body_string("Bad Gateway"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(PULL))
        .respond_with(ResponseTemplate::new(200).set_body_json(pull()))
        .mount(&server)
        .await;
    let mr = platform(&server.uri())
        .get_merge_request(&repo(), 1347)
        .await
        .unwrap();
    assert_eq!(mr.iid, 1347);
    assert_eq!(requests_to(&server, PULL).await, 2);
}

#[tokio::test]
async fn a_review_answered_502_is_not_posted_twice() {
    let server = MockServer::start().await;
    let reviews = format!("{PULL}/reviews");
    Mock::given(method("POST"))
        .and(path(reviews.as_str()))
        .respond_with(ResponseTemplate::new(502).set_body_string("Bad Gateway"))
        .mount(&server)
        .await;
    let refs = DiffRefs {
        base_sha: "b".into(),
        start_sha: "b".into(),
        head_sha: "h".into(),
    };
    let comment = InlineComment {
        file_path: "src/app.rs".into(),
        old_path: None,
        line: 2,
        body: "one".into(),
        suggestion: None,
    };
    let err = platform(&server.uri())
        .post_inline_comments(&repo(), 1347, &refs, &[comment])
        .await
        .unwrap_err();
    assert!(
        matches!(&err, PlatformError::Unavailable(m) if m.contains("502")),
        "{err:?}"
    );
    assert_eq!(
        requests_to(&server, &reviews).await,
        1,
        "GitHub may have posted it"
    );
}

#[tokio::test]
async fn a_secondary_rate_limit_is_waited_out_even_for_a_post() {
    let server = MockServer::start().await;
    let comments = "/api/v3/repos/octocat/Hello-World/issues/1347/comments";
    Mock::given(method("POST"))
        .and(path(comments))
        .respond_with(
            ResponseTemplate::new(403)
                .insert_header("retry-after", "1")
                .set_body_json(json!({
                    "message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
                    "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
                })),
        )
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(comments))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({
            "id": 1, "body": "Me too", "created_at": "2011-04-14T16:00:49Z"
        })))
        .mount(&server)
        .await;
    let started = std::time::Instant::now();
    let id = platform(&server.uri())
        .post_comment(&repo(), 1347, "Me too")
        .await
        .unwrap();
    assert_eq!(id, "1");
    assert_eq!(requests_to(&server, comments).await, 2);
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After is honoured"
    );
}

#[tokio::test]
async fn a_429_asking_for_longer_than_the_policy_waits_is_returned_at_once() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(PULL))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("retry-after", "60")
                .set_body_json(json!({ "message": "API rate limit exceeded" })),
        )
        .mount(&server)
        .await;
    let started = std::time::Instant::now();
    let err = platform(&server.uri())
        .get_merge_request(&repo(), 1347)
        .await
        .unwrap_err();
    assert_eq!(
        err,
        PlatformError::RateLimited {
            retry_after: Some(Duration::from_secs(60))
        }
    );
    assert_eq!(requests_to(&server, PULL).await, 1);
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn every_request_carries_one_user_agent_and_githubs_headers_once() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(PULL))
        .respond_with(ResponseTemplate::new(200).set_body_json(pull()))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(
            "/api/v3/repos/octocat/Hello-World/issues/1347/comments",
        ))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({ "id": 2 })))
        .mount(&server)
        .await;
    let gh = platform(&server.uri());
    gh.get_merge_request(&repo(), 1347).await.unwrap();
    gh.post_comment(&repo(), 1347, "hello").await.unwrap();
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        let all = |name: &str| -> Vec<String> {
            request
                .headers
                .get_all(name)
                .iter()
                .map(|v| v.to_str().unwrap().to_owned())
                .collect()
        };
        assert_eq!(
            all("user-agent"),
            vec![concat!("reviewd/", env!("CARGO_PKG_VERSION"))]
        );
        assert_eq!(all("x-github-api-version"), vec!["2022-11-28"]);
        assert_eq!(all("accept"), vec!["application/vnd.github+json"]);
        assert_eq!(all("authorization"), vec!["Bearer ghp_policy"]);
    }
}

#[tokio::test]
async fn the_token_goes_with_every_page_of_an_enterprise_list() {
    let server = MockServer::start().await;
    let repo_json = |id: u64| {
        json!({ "id": id, "name": format!("r{id}"), "full_name": format!("octo/r{id}"),
                "html_url": format!("https://ghe.example.com/octo/r{id}"), "private": true })
    };
    // The `Link` of an Enterprise Server names its own host: octocrab would send
    // a request there without the token.
    let next = format!(
        "<{}/api/v3/user/repos?page=2&per_page=100>; rel=\"next\", <{}/api/v3/user/repos?page=2&per_page=100>; rel=\"last\"",
        server.uri(),
        server.uri()
    );
    Mock::given(method("GET"))
        .and(path("/api/v3/user/repos"))
        .and(query_param("page", "1"))
        .and(header("authorization", "Bearer ghp_policy"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("link", next.as_str())
                .set_body_json(json!([repo_json(1)])),
        )
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/v3/user/repos"))
        .and(query_param("page", "2"))
        .and(header("authorization", "Bearer ghp_policy"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!([repo_json(2)])))
        .mount(&server)
        .await;
    let projects = platform(&server.uri()).list_projects().await.unwrap();
    assert_eq!(
        projects.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
        vec!["1", "2"]
    );
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2);
    assert!(
        requests
            .iter()
            .all(|r| r.headers.get("authorization").is_some())
    );
}

#[tokio::test]
async fn an_unreachable_server_is_unavailable_after_the_retries() {
    // A port nobody listens on: each attempt fails to connect.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let err = platform(&base)
        .get_merge_request(&repo(), 1347)
        .await
        .unwrap_err();
    assert!(matches!(err, PlatformError::Unavailable(_)), "{err:?}");
}
