//! One user agent and GitHub's headers on every request; the token on every page.

use super::*;

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
