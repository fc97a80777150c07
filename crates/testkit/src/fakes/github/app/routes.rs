//! The App's routes on the fake GitHub, in GitHub's shapes: the App and its
//! installations (read with the App's JWT), token minting, and the repositories an
//! installation token reaches.

use super::{App, EVENTS, Installation, granted};
use crate::fakes::github::FakeGithub;
use crate::fakes::github::access::{Access, repositories};
use crate::fakes::github::hosted::{github_page, link};
use crate::fakes::github::wire::{bearer, error};
use crate::fakes::hosted::paged;
use serde_json::{Value, json};
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, Request, ResponseTemplate};

/// An organisation as installations name their account (ids made from the login).
fn account(login: &str) -> Value {
    let id = login.bytes().fold(5_000_000_u64, |id, b| {
        (id * 31 + u64::from(b)) % 90_000_000 + 5_000_000
    });
    json!({
        "login": login, "id": id, "node_id": format!("O_{id}"),
        "avatar_url": format!("https://avatars.example.com/u/{id}"),
        "html_url": format!("https://github.example.com/{login}"), "type": "Organization", "site_admin": false,
    })
}

fn installation_json(app: &App, installation: &Installation, request: &Request) -> Value {
    let origin = request.url.origin().ascii_serialization();
    let (id, login) = (installation.id, &installation.account);
    let account = account(login);
    let suspended = installation.suspended;
    json!({
        "id": id,
        "account": account,
        "repository_selection": installation.selection(),
        "access_tokens_url": format!("{origin}/api/v3/app/installations/{id}/access_tokens"),
        "repositories_url": format!("{origin}/api/v3/installation/repositories"),
        "html_url": format!("https://github.example.com/organizations/{login}/settings/installations/{id}"),
        "app_id": app.id,
        "app_slug": app.slug,
        "target_id": account["id"],
        "target_type": "Organization",
        "permissions": granted(),
        "events": EVENTS,
        "created_at": "2026-11-01T00:00:00Z",
        "updated_at": "2026-11-01T00:00:00Z",
        "single_file_name": null,
        "has_multiple_single_files": false,
        "single_file_paths": [],
        "suspended_at": suspended.then_some("2026-11-20T00:00:00Z"),
        "suspended_by": suspended.then(|| json!({ "login": login, "id": account["id"], "type": "User", "site_admin": false })),
    })
}

fn app_json(app: &App, installations: usize) -> Value {
    json!({
        "id": app.id,
        "slug": app.slug,
        "node_id": format!("A_{}", app.id),
        "client_id": format!("Iv23li{:010}", app.id),
        "owner": account("reviewd"),
        "name": app.name,
        "description": "",
        "external_url": "https://reviewd.example.com",
        "html_url": format!("https://github.example.com/apps/{}", app.slug),
        "created_at": "2026-11-01T00:00:00Z",
        "updated_at": "2026-11-01T00:00:00Z",
        "permissions": granted(),
        "events": EVENTS,
        "installations_count": installations,
    })
}

/// The number after `/installations/` in the path.
fn installation_id(request: &Request) -> Option<u64> {
    let mut segments = request.url.path().split('/');
    segments.find(|s| *s == "installations")?;
    segments.next()?.parse().ok()
}

/// A page of `items` answered as `{"total_count", <key>: [...]}` (`extra` merged
/// in), with GitHub's `Link` header.
fn page_in(key: &str, items: Vec<Value>, extra: Value, request: &Request) -> ResponseTemplate {
    let page = paged(items, request, 30);
    let mut body = json!({ "total_count": page.total, key: page.items });
    if let (Some(body), Value::Object(extra)) = (body.as_object_mut(), extra) {
        body.extend(extra);
    }
    let response = ResponseTemplate::new(200).set_body_json(body);
    match link(request, &page) {
        Some(link) => response.insert_header("link", link.as_str()),
        None => response,
    }
}

impl FakeGithub {
    /// The App routes: checked with the JWT (`/app…`, `/repos/…/installation`) or
    /// with an installation token (`/installation/repositories`), ahead of the
    /// repository routes.
    pub(in crate::fakes::github) async fn serve_app(&self) {
        let (app, hosted) = (self.app.clone(), self.hosted.clone());
        let mint = move |r: &Request| {
            let known = repositories(&hosted);
            let id = installation_id(r).unwrap_or_default();
            app.lock().unwrap().mint(id, r, &known)
        };
        let tokens = path_regex(r"^/api/v3/app/installations/\d+/access_tokens$");
        self.mount_app("POST", tokens, mint).await;

        let app = self.app.clone();
        let show_app = move |r: &Request| {
            let state = app.lock().unwrap();
            match state.check_jwt(r) {
                Ok(a) => {
                    ResponseTemplate::new(200).set_body_json(app_json(a, state.installations.len()))
                }
                Err(refused) => refused,
            }
        };
        self.mount_app("GET", path("/api/v3/app"), show_app).await;

        let app = self.app.clone();
        let list = move |r: &Request| {
            let state = app.lock().unwrap();
            let a = match state.check_jwt(r) {
                Ok(a) => a,
                Err(refused) => return refused,
            };
            let listed: Vec<Value> = state
                .installations
                .iter()
                .map(|i| installation_json(a, i, r))
                .collect();
            github_page(listed, r)
        };
        self.mount_app("GET", path("/api/v3/app/installations"), list)
            .await;

        let app = self.app.clone();
        let one = move |r: &Request| {
            let state = app.lock().unwrap();
            let a = match state.check_jwt(r) {
                Ok(a) => a,
                Err(refused) => return refused,
            };
            let id = installation_id(r);
            match state.installations.iter().find(|i| Some(i.id) == id) {
                Some(i) => ResponseTemplate::new(200).set_body_json(installation_json(a, i, r)),
                None => error(404, "Not Found"),
            }
        };
        let route = path_regex(r"^/api/v3/app/installations/\d+$");
        self.mount_app("GET", route, one).await;

        let (app, hosted) = (self.app.clone(), self.hosted.clone());
        let of_repo = move |r: &Request| {
            let known = repositories(&hosted);
            let state = app.lock().unwrap();
            let a = match state.check_jwt(r) {
                Ok(a) => a,
                Err(refused) => return refused,
            };
            let segments: Vec<&str> = r.url.path().split('/').collect();
            let full_name = segments.get(4..6).map(|s| s.join("/")).unwrap_or_default();
            let exists = known
                .iter()
                .any(|(_, n)| n.eq_ignore_ascii_case(&full_name));
            let found = state
                .installations
                .iter()
                .find(|i| i.reaches(&full_name, &known));
            match found.filter(|_| exists) {
                Some(i) => ResponseTemplate::new(200).set_body_json(installation_json(a, i, r)),
                None => error(404, "Not Found"),
            }
        };
        let route = path_regex(r"^/api/v3/repos/[^/]+/[^/]+/installation$");
        self.mount_app("GET", route, of_repo).await;

        let (app, credentials) = (self.app.clone(), self.credentials());
        let listed = move |r: &Request| match credentials.access(r) {
            Access::Granted => {
                let projects = credentials.hosted.lock().unwrap().projects.clone();
                let known = repositories(&credentials.hosted);
                let state = app.lock().unwrap();
                let Some((issued, installation)) = bearer(r).and_then(|t| state.live_token(t))
                else {
                    return error(
                        403,
                        "You must authenticate with an installation access token in order to list repositories for an installation.",
                    );
                };
                let reached: Vec<Value> = projects
                    .into_iter()
                    .filter(|p| {
                        let name = p["full_name"].as_str().unwrap_or_default();
                        issued.reaches(installation, name, &known)
                    })
                    .collect();
                let selection = if issued.repositories.is_some() {
                    "selected"
                } else {
                    installation.selection()
                };
                let extra = json!({ "repository_selection": selection });
                page_in("repositories", reached, extra, r)
            }
            Access::Forbidden(message) => error(403, message),
            Access::OutOfReach | Access::Unknown => error(401, "Bad credentials"),
        };
        let route = path("/api/v3/installation/repositories");
        self.mount_app("GET", route, listed).await;
    }

    /// Mounts an App route ahead of the repository routes (its own checks decide),
    /// behind what [`FakeGithub::fail`] injects.
    async fn mount_app(
        &self,
        verb: &str,
        route: impl wiremock::Match + 'static,
        respond: impl wiremock::Respond + 'static,
    ) {
        Mock::given(method(verb))
            .and(route)
            .respond_with(respond)
            .with_priority(2)
            .mount(&self.server)
            .await;
    }
}
