//! A GitHub (hostB) REST API stand-in served under `/api/v3` (an Enterprise Server's
//! layout), with GraphQL at `/api/graphql`: real response shapes, `Link`
//! pagination, token checks, request records. With [`FakeGithub::app`] it is also
//! a GitHub App's side of GitHub: installations and expiring installation tokens.

mod access;
mod app;
pub use app::TokenMint;
mod feedback;
mod gates;
mod graphql;
mod hosted;
mod people;
mod wire;

use crate::fakes::hosted::{Hosted, Shared};
use access::{Access, Credentials};
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path, path_regex, query_param};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

pub struct FakeGithub {
    pub server: MockServer,
    pub token: String,
    /// What `add_project` put here and what was posted since.
    hosted: Shared,
    /// The pull requests `add_project` put here, for GraphQL to know them.
    pulls: graphql::Pulls,
    /// The GitHub App, its installations and their tokens.
    app: app::AppShared,
    /// Which comments the App's bot posted (with an installation token).
    authors: people::Authors,
}

/// A repository as `GET /user/repos` returns it.
#[must_use]
pub fn github_repo(id: u64, full_name: &str) -> Value {
    let name = full_name.rsplit('/').next().unwrap_or(full_name);
    json!({
        "id": id,
        "node_id": format!("R_{id}"),
        "name": name,
        "full_name": full_name,
        "private": true,
        "visibility": "private",
        "html_url": format!("https://github.example.com/{full_name}"),
        "url": format!("https://github.example.com/api/v3/repos/{full_name}"),
        "default_branch": "main",
        "owner": { "login": full_name.split('/').next().unwrap_or("org"), "id": 1 },
    })
}

impl FakeGithub {
    /// A test-only GitHub App private key (2048-bit RSA, PKCS#1 PEM as GitHub hands
    /// them out), whose public half is [`FakeGithub::APP_PUBLIC_KEY`].
    pub const APP_PRIVATE_KEY: &str =
        include_str!("../../../fixtures/github-app/app-private-key.pem");
    /// The public key of [`FakeGithub::APP_PRIVATE_KEY`] (SPKI PEM), for [`FakeGithub::app`].
    pub const APP_PUBLIC_KEY: &str =
        include_str!("../../../fixtures/github-app/app-public-key.pem");
    /// Another test-only private key: a JWT signed with it is not the App's.
    pub const OTHER_PRIVATE_KEY: &str =
        include_str!("../../../fixtures/github-app/other-private-key.pem");

    /// A GitHub that accepts `token` (as `Authorization: Bearer`), with no
    /// repositories yet; [`FakeGithub::app`] adds a GitHub App.
    pub async fn start(token: &str) -> FakeGithub {
        let server = MockServer::start().await;
        let fake = FakeGithub {
            server,
            token: token.to_owned(),
            // Clear of the ids `with_repos` serves.
            hosted: Hosted::shared(7000),
            pulls: graphql::Pulls::default(),
            app: app::AppState::shared(),
            authors: people::Authors::default(),
        };
        fake.serve_graphql().await;
        Mock::given(method("GET"))
            .and(path("/api/v3/user"))
            .and(header("authorization", format!("Bearer {token}").as_str()))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_json(json!({ "id": 42, "login": "reviewd-bot", "name": "Reviewd Bot",
                        "avatar_url": "https://avatars.example.com/42", "html_url": "https://github.example.com/reviewd-bot" }))
                    .insert_header("x-oauth-scopes", "repo, admin:repo_hook"),
            )
            .mount(&fake.server)
            .await;
        let credentials = fake.credentials();
        Mock::given(credentials.matching(|a| matches!(a, Access::Forbidden(_))))
            .respond_with(move |r: &Request| credentials.forbidden(r))
            .with_priority(u8::MAX - 2)
            .mount(&fake.server)
            .await;
        // A known credential on a route the fake lacks, or on a repository out of an
        // installation token's reach.
        Mock::given(fake.credentials().matching(|a| *a != Access::Unknown))
            .respond_with(
                ResponseTemplate::new(404)
                    .set_body_json(json!({ "message": "Not Found", "status": "404" })),
            )
            .with_priority(u8::MAX - 1)
            .mount(&fake.server)
            .await;
        Mock::given(wiremock::matchers::any())
            .respond_with(ResponseTemplate::new(401).set_body_json(json!({
                "message": "Bad credentials", "documentation_url": "https://docs.github.com/rest", "status": "401",
            })))
            .with_priority(u8::MAX)
            .mount(&fake.server)
            .await;
        fake
    }

    /// The base URL to store in a platform config (the adapter adds `/api/v3`).
    #[must_use]
    pub fn base_url(&self) -> String {
        self.server.uri()
    }

    /// `count` repositories served 100 per page with `Link` headers.
    pub async fn with_repos(&self, count: u64, name_prefix: &str) {
        let per_page = 100;
        let pages = count.div_ceil(per_page).max(1);
        for page in 1..=pages {
            let first = (page - 1) * per_page + 1;
            let last = (page * per_page).min(count);
            let items: Vec<Value> = (first..=last)
                .map(|id| github_repo(1000 + id, &format!("org/{name_prefix}-{id}")))
                .collect();
            let mut response = ResponseTemplate::new(200).set_body_json(items);
            if page < pages {
                let base = format!("{}/api/v3/user/repos", self.server.uri());
                let link = format!(
                    "<{base}?per_page=100&page={}>; rel=\"next\", <{base}?per_page=100&page={pages}>; rel=\"last\"",
                    page + 1
                );
                response = response.insert_header("link", link.as_str());
            }
            Mock::given(method("GET"))
                .and(path("/api/v3/user/repos"))
                .and(query_param("page", page.to_string()))
                .and(header(
                    "authorization",
                    format!("Bearer {}", self.token).as_str(),
                ))
                .respond_with(response)
                .mount(&self.server)
                .await;
        }
    }

    /// Hook endpoints of `full_name`: lists `existing`, creates (201) and deletes (204).
    pub async fn with_hooks(&self, full_name: &str, existing: Value) {
        let hooks = format!("/api/v3/repos/{full_name}/hooks");
        Mock::given(method("GET"))
            .and(path(hooks.clone()))
            .respond_with(ResponseTemplate::new(200).set_body_json(existing))
            .mount(&self.server)
            .await;
        Mock::given(method("POST"))
            .and(path(hooks.clone()))
            .respond_with(|req: &Request| {
                let body: Value = serde_json::from_slice(&req.body).unwrap_or_default();
                ResponseTemplate::new(201).set_body_json(json!({
                    "type": "Repository", "id": 12_345_678, "name": "web", "active": true, "events": body["events"],
                    "config": { "url": body["config"]["url"], "content_type": "json", "insecure_ssl": "0", "secret": "********" },
                }))
            })
            .mount(&self.server)
            .await;
        Mock::given(method("DELETE"))
            .and(path_regex(format!("^{hooks}/\\d+$")))
            .respond_with(ResponseTemplate::new(204))
            .mount(&self.server)
            .await;
    }

    /// Answers `status` with GitHub's error `message` to the next `times` requests
    /// of `http_method` on a path matching `path_pattern`, ahead of every other
    /// route (the App's too), then lets them answer again.
    pub async fn fail(
        &self,
        http_method: &str,
        path_pattern: &str,
        status: u16,
        message: &str,
        times: u64,
    ) {
        Mock::given(method(http_method))
            .and(path_regex(path_pattern))
            .respond_with(wire::error(status, message))
            .up_to_n_times(times)
            .with_priority(1)
            .mount(&self.server)
            .await;
    }

    fn credentials(&self) -> Credentials {
        Credentials {
            pat: self.token.clone(),
            app: self.app.clone(),
            hosted: self.hosted.clone(),
        }
    }

    pub async fn requests(&self) -> Vec<Request> {
        self.server.received_requests().await.unwrap_or_default()
    }
}
