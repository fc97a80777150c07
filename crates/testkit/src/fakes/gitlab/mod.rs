//! A GitLab (hostA) REST API v4 stand-in: real response shapes and pagination
//! headers, token checks, and a record of every request for assertions.

mod feedback;
mod hosted;
mod oauth;
mod statuses;

use crate::fakes::hosted::{Hosted, Shared, body_json};
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path, path_regex, query_param};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

pub struct FakeGitlab {
    pub server: MockServer,
    pub token: String,
    /// What `add_project` put here and what was posted since.
    hosted: Shared,
    /// What `with_oauth_app` grants.
    oauth: oauth::SharedGrants,
}

/// A GitLab project as `GET /projects` returns it.
#[must_use]
pub fn gitlab_project(id: u64, path_with_namespace: &str) -> Value {
    let name = path_with_namespace
        .rsplit('/')
        .next()
        .unwrap_or(path_with_namespace);
    json!({
        "id": id,
        "name": name,
        "name_with_namespace": path_with_namespace.replace('/', " / "),
        "path": name,
        "path_with_namespace": path_with_namespace,
        "web_url": format!("https://gitlab.example.com/{path_with_namespace}"),
        "default_branch": "main",
        "visibility": "private",
        "created_at": "2026-01-01T00:00:00.000Z",
    })
}

/// `value` typed as GitLab's API declares the parameter `key` (a form body brings
/// strings only): flags (`*_events`, `enable_ssl_verification`, `resolved`) as
/// booleans, lines and ids (`*_line`, `*_id`, `*_ids[]`) as numbers.
fn typed(key: &str, value: Value) -> Value {
    let flag = key.ends_with("_events") || matches!(key, "enable_ssl_verification" | "resolved");
    let number = key.ends_with("_line") || key.ends_with("_id") || key.ends_with("_ids");
    match value {
        Value::Object(fields) => Value::Object(
            fields
                .into_iter()
                .map(|(k, v)| {
                    let v = typed(&k, v);
                    (k, v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(|v| typed(key, v)).collect()),
        Value::String(text) if flag && matches!(text.as_str(), "true" | "false") => {
            Value::Bool(text == "true")
        }
        Value::String(text) if number => text
            .parse::<u64>()
            .map_or(Value::String(text), |n| json!(n)),
        other => other,
    }
}

impl FakeGitlab {
    /// A request's parameters as GitLab reads them, from a JSON or a form body
    /// (`position[new_line]=3` → `{"position": {"new_line": 3}}`), typed as its API
    /// declares them: what tests assert on the calls sent here.
    #[must_use]
    pub fn params(request: &Request) -> Value {
        typed("", body_json(request))
    }

    /// A server that knows `token` (with the `api` scope) and answers 401 to anything else.
    pub async fn start(token: &str) -> FakeGitlab {
        let server = MockServer::start().await;
        let fake = FakeGitlab {
            server,
            token: token.to_owned(),
            // Clear of the ids `with_projects` serves.
            hosted: Hosted::shared(5000),
            oauth: oauth::SharedGrants::default(),
        };
        Mock::given(method("GET"))
            .and(path("/api/v4/user"))
            .and(header("PRIVATE-TOKEN", token))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "id": hosted::OWNER.0, "username": hosted::OWNER.1, "name": hosted::OWNER.2, "state": "active",
                "avatar_url": "https://gitlab.example.com/avatar.png", "web_url": format!("https://gitlab.example.com/{}", hosted::OWNER.1),
            })))
            .mount(&fake.server)
            .await;
        fake.mount_scopes(&["api", "read_user"], 3).await;
        // As GitLab: a known token asking for something that is not there gets a 404.
        Mock::given(header("PRIVATE-TOKEN", token))
            .respond_with(
                ResponseTemplate::new(404).set_body_json(json!({ "message": "404 Not found" })),
            )
            .with_priority(u8::MAX - 1)
            .mount(&fake.server)
            .await;
        Mock::given(wiremock::matchers::any())
            .respond_with(
                ResponseTemplate::new(401).set_body_json(json!({ "message": "401 Unauthorized" })),
            )
            .with_priority(u8::MAX)
            .mount(&fake.server)
            .await;
        fake
    }

    #[must_use]
    pub fn base_url(&self) -> String {
        self.server.uri()
    }

    /// What `/personal_access_tokens/self` reports for the token (instead of `api`).
    pub async fn with_scopes(&self, scopes: &[&str]) {
        self.mount_scopes(scopes, 1).await;
    }

    async fn mount_scopes(&self, scopes: &[&str], priority: u8) {
        Mock::given(method("GET"))
            .and(path("/api/v4/personal_access_tokens/self"))
            .and(header("PRIVATE-TOKEN", self.token.as_str()))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "id": 1, "name": "reviewd", "revoked": false, "active": true, "scopes": scopes, "user_id": 7,
            })))
            .with_priority(priority)
            .mount(&self.server)
            .await;
    }

    /// `count` projects with ids `1..=count`, served 100 per page with GitLab's
    /// pagination headers.
    pub async fn with_projects(&self, count: u64, name_prefix: &str) {
        let per_page = 100;
        let pages = count.div_ceil(per_page).max(1);
        for page in 1..=pages {
            let first = (page - 1) * per_page + 1;
            let last = (page * per_page).min(count);
            let items: Vec<Value> = (first..=last)
                .map(|id| gitlab_project(id, &format!("group/{name_prefix}-{id}")))
                .collect();
            let next = if page < pages {
                (page + 1).to_string()
            } else {
                String::new()
            };
            Mock::given(method("GET"))
                .and(path("/api/v4/projects"))
                .and(query_param("page", page.to_string()))
                .and(header("PRIVATE-TOKEN", self.token.as_str()))
                .respond_with(
                    ResponseTemplate::new(200)
                        .set_body_json(items)
                        .insert_header("x-total", count.to_string())
                        .insert_header("x-total-pages", pages.to_string())
                        .insert_header("x-page", page.to_string())
                        .insert_header("x-per-page", per_page.to_string())
                        .insert_header("x-next-page", next),
                )
                .mount(&self.server)
                .await;
        }
        for id in 1..=count.min(5) {
            Mock::given(method("GET"))
                .and(path(format!("/api/v4/projects/{id}")))
                .and(header("PRIVATE-TOKEN", self.token.as_str()))
                .respond_with(
                    ResponseTemplate::new(200)
                        .set_body_json(gitlab_project(id, &format!("group/{name_prefix}-{id}"))),
                )
                .mount(&self.server)
                .await;
        }
    }

    /// Hook endpoints of one project: lists `existing`, creates new ones (echoing the
    /// URL, never the token, as GitLab does) and deletes any.
    pub async fn with_hooks(&self, project_id: u64, existing: Value) {
        let hooks = format!("/api/v4/projects/{project_id}/hooks");
        Mock::given(method("GET"))
            .and(path(hooks.clone()))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_json(existing)
                    .insert_header("x-next-page", ""),
            )
            .mount(&self.server)
            .await;
        Mock::given(method("POST"))
            .and(path(hooks.clone()))
            .and(header("PRIVATE-TOKEN", self.token.as_str()))
            .respond_with(|req: &Request| {
                let body = FakeGitlab::params(req);
                ResponseTemplate::new(201).set_body_json(json!({
                    "id": 9001, "url": body["url"], "merge_requests_events": body["merge_requests_events"],
                    "note_events": body["note_events"], "push_events": body["push_events"],
                    "emoji_events": body["emoji_events"].as_bool().unwrap_or_default(),
                    "enable_ssl_verification": body["enable_ssl_verification"], "created_at": "2026-11-22T00:00:00Z",
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

    /// Answers `status` (with `headers`) to the next `times` matching requests, then
    /// lets the other mocks answer: for 429s and 5xx.
    pub async fn fail(
        &self,
        http_method: &str,
        path_pattern: &str,
        status: u16,
        headers: &[(&str, &str)],
        times: u64,
    ) {
        let mut response = ResponseTemplate::new(status)
            .set_body_json(json!({ "message": format!("{status} injected") }));
        for (k, v) in headers {
            response = response.insert_header(*k, *v);
        }
        Mock::given(method(http_method))
            .and(path_regex(path_pattern))
            .respond_with(response)
            .up_to_n_times(times)
            .with_priority(1)
            .mount(&self.server)
            .await;
    }

    /// Every request received so far.
    pub async fn requests(&self) -> Vec<Request> {
        self.server.received_requests().await.unwrap_or_default()
    }
}
