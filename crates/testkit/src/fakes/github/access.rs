//! Who may call the fake GitHub's repository routes: the server's personal token, or
//! a live installation token whose installation (and, when narrowed, whose own
//! repository list) reaches the repository in the path. One classification, used
//! by every route's matcher and by the fallbacks that answer 403, 404 and 401 as
//! GitHub does.

use super::app::AppShared;
use super::wire::{bearer, error};
use crate::fakes::hosted::Shared;
use wiremock::{Match, Request, ResponseTemplate};

/// What a request's credentials allow on its route.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Access {
    Granted,
    /// A live installation token that may not do this: GitHub's 403 message.
    Forbidden(&'static str),
    /// A known credential, but the repository is outside what it reaches: GitHub
    /// answers 404 rather than admit the repository exists.
    OutOfReach,
    /// No credential, an unknown one, or an expired installation token.
    Unknown,
}

/// The server's credentials: its personal token and the App's installation tokens.
#[derive(Clone)]
pub(super) struct Credentials {
    pub pat: String,
    pub app: AppShared,
    pub hosted: Shared,
}

/// `(id, full_name)` of every repository on the server.
pub(super) fn repositories(hosted: &Shared) -> Vec<(u64, String)> {
    hosted
        .lock()
        .unwrap()
        .projects
        .iter()
        .filter_map(|p| Some((p["id"].as_u64()?, p["full_name"].as_str()?.to_owned())))
        .collect()
}

/// The repository a REST path is about (`/repos/{owner}/{repo}/…` or
/// `/repositories/{id}/…`): `None` for a path about none, `Some(None)` for an id
/// the server does not know.
fn repository_of(path: &str, known: &[(u64, String)]) -> Option<Option<String>> {
    let mut segments = path.strip_prefix("/api/v3/")?.split('/');
    match segments.next()? {
        "repos" => {
            let (owner, name) = (segments.next()?, segments.next()?);
            Some(Some(format!("{owner}/{name}")))
        }
        "repositories" => {
            let id: u64 = segments.next()?.parse().ok()?;
            Some(known.iter().find(|(i, _)| *i == id).map(|(_, n)| n.clone()))
        }
        _ => None,
    }
}

const NOT_FOR_INTEGRATIONS: &str = "Resource not accessible by integration";

impl Credentials {
    pub fn access(&self, request: &Request) -> Access {
        let Some(token) = bearer(request) else {
            return Access::Unknown;
        };
        if token == self.pat {
            return Access::Granted;
        }
        let known = repositories(&self.hosted);
        let app = self.app.lock().unwrap();
        let Some((issued, installation)) = app.live_token(token) else {
            return Access::Unknown;
        };
        if installation.suspended {
            return Access::Forbidden("This installation has been suspended");
        }
        let path = request.url.path();
        // Installation tokens act for no user.
        if path == "/api/v3/user" || path.starts_with("/api/v3/user/") {
            return Access::Forbidden(NOT_FOR_INTEGRATIONS);
        }
        let Some(repository) = repository_of(path, &known) else {
            return Access::Granted;
        };
        let reached = repository.is_some_and(|r| issued.reaches(installation, &r, &known));
        if !reached {
            return Access::OutOfReach;
        }
        let reads = matches!(request.method.as_str(), "GET" | "HEAD");
        if !reads && !issued.may_write() {
            return Access::Forbidden(NOT_FOR_INTEGRATIONS);
        }
        Access::Granted
    }

    /// Whether the request's credentials reach repository `full_name` (for routes
    /// that name it elsewhere than in the path, as GraphQL does).
    pub fn reaches(&self, request: &Request, full_name: &str) -> bool {
        let Some(token) = bearer(request) else {
            return false;
        };
        if token == self.pat {
            return true;
        }
        let known = repositories(&self.hosted);
        let app = self.app.lock().unwrap();
        app.live_token(token).is_some_and(|(issued, installation)| {
            !installation.suspended && issued.reaches(installation, full_name, &known)
        })
    }

    /// A matcher for the requests whose access `accepts` takes.
    pub fn matching(&self, accepts: fn(&Access) -> bool) -> Matching {
        Matching {
            credentials: self.clone(),
            accepts,
        }
    }

    /// GitHub's 403 for what [`Access::Forbidden`] names (404 if the access
    /// changed in between).
    pub fn forbidden(&self, request: &Request) -> ResponseTemplate {
        match self.access(request) {
            Access::Forbidden(message) => error(403, message),
            _ => error(404, "Not Found"),
        }
    }
}

/// Requests whose [`Access`] a predicate accepts.
pub(super) struct Matching {
    credentials: Credentials,
    accepts: fn(&Access) -> bool,
}

impl Match for Matching {
    fn matches(&self, request: &Request) -> bool {
        (self.accepts)(&self.credentials.access(request))
    }
}
