//! `POST /api/graphql` on the fake GitHub (an Enterprise Server's GraphQL route),
//! answering what reviewd sends: a pull request's `reviewThreads`, with whether
//! each is resolved and by whom, from what the server keeps, and the
//! `resolveReviewThread` mutation. Errors come
//! as GitHub sends them: 200 with `errors`.

use super::FakeGithub;
use super::access::Credentials;
use crate::fakes::hosted::{HostedComment, HostedFake, body_json};
use base64::Engine as _;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use wiremock::matchers::path;
use wiremock::{Request, ResponseTemplate};

/// Pull requests put on the server, by repository full name and number.
pub(super) type Pulls = Arc<Mutex<Vec<(String, i64)>>>;

/// GitHub's cap on `first`.
const MAX_FIRST: usize = 100;

fn errors(data: Value, kind: Option<&str>, path: &[&str], message: &str) -> ResponseTemplate {
    let mut error =
        json!({ "path": path, "locations": [{ "line": 1, "column": 1 }], "message": message });
    if let Some(kind) = kind {
        error["type"] = json!(kind);
    }
    ResponseTemplate::new(200).set_body_json(json!({ "data": data, "errors": [error] }))
}

/// `first: N` of the `reviewThreads` selection (a literal or `$first`), else 100.
fn first(query: &str, variables: &Value) -> usize {
    let after = query
        .split_once("reviewThreads(")
        .map_or("", |(_, rest)| rest);
    let argument = after
        .split_once("first:")
        .map(|(_, rest)| rest.trim_start())
        .unwrap_or_default();
    let literal: String = argument.chars().take_while(char::is_ascii_digit).collect();
    let requested = literal.parse().ok().or_else(|| {
        argument
            .strip_prefix("$first")
            .and_then(|_| variables["first"].as_u64())
            .and_then(|n| usize::try_from(n).ok())
    });
    requested.unwrap_or(MAX_FIRST).clamp(1, MAX_FIRST)
}

/// An opaque cursor, as GitHub's are: the position after which the next page starts.
fn cursor(position: usize) -> String {
    base64::engine::general_purpose::STANDARD.encode(format!("cursor:v2:{position}"))
}

fn position(cursor: &str) -> Option<usize> {
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(cursor)
        .ok()?;
    String::from_utf8(decoded)
        .ok()?
        .strip_prefix("cursor:v2:")?
        .parse()
        .ok()
}

/// A thread's node id: opaque to clients, naming the repository and first comment.
fn node_id(full_name: &str, root: u64) -> String {
    format!(
        "PRRT_{}",
        base64::engine::general_purpose::STANDARD.encode(format!("{full_name}#{root}"))
    )
}

/// A thread with the first comment's id in the fields the query asks for, as
/// GitHub answers: `databaseId` (an `Int`, deprecated) and `fullDatabaseId` (a
/// `BigInt`, which GraphQL encodes as a string).
fn thread(full_name: &str, root: &HostedComment, query: &str) -> Value {
    let mut first = serde_json::Map::new();
    if query.contains("fullDatabaseId") {
        first.insert("fullDatabaseId".into(), json!(root.id.to_string()));
    }
    if query.replace("fullDatabaseId", "").contains("databaseId") {
        first.insert("databaseId".into(), json!(root.id));
    }
    json!({
        "id": node_id(full_name, root.id),
        "isResolved": root.resolved_by.is_some(),
        "resolvedBy": root.resolved_by.as_ref().map(|login| json!({ "login": login })),
        "comments": { "nodes": [first] },
    })
}

/// `resolveReviewThread(input: { threadId })`, as the token's owner (or the App's bot).
fn resolve_thread(credentials: &Credentials, request: &Request, by: &str) -> ResponseTemplate {
    let body = body_json(request);
    let thread = body["variables"]["thread"].as_str().unwrap_or_default();
    let decoded = thread
        .strip_prefix("PRRT_")
        .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
        .and_then(|b| String::from_utf8(b).ok());
    let Some((full_name, root)) = decoded
        .as_deref()
        .and_then(|d| d.rsplit_once('#'))
        .and_then(|(name, id)| Some((name.to_owned(), id.parse::<u64>().ok()?)))
    else {
        return errors(
            json!({ "resolveReviewThread": null }),
            Some("NOT_FOUND"),
            &["resolveReviewThread"],
            &format!("Could not resolve to a node with the global id of '{thread}'"),
        );
    };
    if !credentials.reaches(request, &full_name)
        || !credentials
            .hosted
            .lock()
            .unwrap()
            .resolve(&full_name, root, Some(by))
    {
        return errors(
            json!({ "resolveReviewThread": null }),
            Some("NOT_FOUND"),
            &["resolveReviewThread"],
            &format!("Could not resolve to a node with the global id of '{thread}'"),
        );
    }
    ResponseTemplate::new(200).set_body_json(json!({
        "data": { "resolveReviewThread": { "thread": { "id": thread, "isResolved": true } } },
    }))
}

fn review_threads(credentials: &Credentials, pulls: &Pulls, request: &Request) -> ResponseTemplate {
    let body = body_json(request);
    let query = body["query"].as_str().unwrap_or_default();
    let variables = &body["variables"];
    if !query.contains("reviewThreads") {
        return errors(
            Value::Null,
            None,
            &[],
            "the fake GitHub answers reviewThreads queries only",
        );
    }
    let owner = variables["owner"].as_str().unwrap_or_default();
    let name = variables["name"].as_str().unwrap_or_default();
    let full_name = format!("{owner}/{name}");
    // An installation token sees only the repositories it reaches, the rest as absent.
    let reached = credentials.reaches(request, &full_name);
    let hosted = credentials.hosted.lock().unwrap();
    if !reached || !hosted.projects.iter().any(|p| p["full_name"] == full_name) {
        return errors(
            json!({ "repository": null }),
            Some("NOT_FOUND"),
            &["repository"],
            &format!("Could not resolve to a Repository with the name '{full_name}'."),
        );
    }
    let number = variables["number"].as_i64().unwrap_or_default();
    if !pulls
        .lock()
        .unwrap()
        .iter()
        .any(|(repo, n)| *repo == full_name && *n == number)
    {
        return errors(
            json!({ "repository": { "pullRequest": null } }),
            Some("NOT_FOUND"),
            &["repository", "pullRequest"],
            &format!("Could not resolve to a PullRequest with the number of {number}."),
        );
    }
    let roots: Vec<HostedComment> = hosted
        .comments_on(&full_name, number)
        .into_iter()
        .filter(|c| c.anchor.is_some() && c.in_reply_to.is_none())
        .collect();
    let start = match variables["cursor"].as_str() {
        None => 0,
        Some(after) => match position(after) {
            Some(p) => p,
            None => {
                return errors(
                    Value::Null,
                    None,
                    &["repository", "pullRequest", "reviewThreads"],
                    &format!("`{after}` does not appear to be a valid cursor."),
                );
            }
        },
    };
    let page: Vec<Value> = roots
        .iter()
        .skip(start)
        .take(first(query, variables))
        .map(|root| thread(&full_name, root, query))
        .collect();
    let end = start + page.len();
    let threads = json!({
        "pageInfo": { "hasNextPage": end < roots.len(), "endCursor": (!page.is_empty()).then(|| cursor(end)) },
        "nodes": page,
    });
    ResponseTemplate::new(200).set_body_json(json!({
        "data": { "repository": { "pullRequest": { "reviewThreads": threads } } },
    }))
}

impl FakeGithub {
    /// Mounts `POST /api/graphql` for the server's token and installation tokens.
    pub(super) async fn serve_graphql(&self) {
        let (credentials, pulls) = (self.credentials(), self.pulls.clone());
        let app = self.app.clone();
        self.serve("POST", path("/api/graphql"), move |r: &Request| {
            let query = body_json(r)["query"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            if query.trim_start().starts_with("mutation") && query.contains("resolveReviewThread") {
                return resolve_thread(&credentials, r, &super::people::actor(&app, r));
            }
            review_threads(&credentials, &pulls, r)
        })
        .await;
    }
}
