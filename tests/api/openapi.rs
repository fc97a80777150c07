//! The API document: served without auth at `/api/openapi.json`, browsable offline at
//! `/api/docs`, and describing exactly the routes that exist: every endpoint of the
//! contract and of `design.md`, and nothing that does not answer.

use crate::helpers::{TestApp, json};
use reqwest::{Method, StatusCode};
use serde_json::Value;
use std::collections::BTreeSet;

/// The contract's endpoint table, as written there (`:name` path parameters).
const CONTRACT: &[&str] = &[
    "DELETE /api/notifications/push/unsubscribe",
    "DELETE /api/platform-configs/:id",
    "DELETE /api/projects/:projectId",
    "DELETE /api/runners/:id",
    "GET /api/health",
    "GET /api/health/ai-providers",
    "GET /api/health/check",
    "GET /api/health/database",
    "GET /api/health/detailed",
    "GET /api/health/disk-space",
    "GET /api/health/history",
    "GET /api/health/hostA",
    "GET /api/health/status",
    "GET /api/metrics",
    "GET /api/monitoring/api",
    "GET /api/monitoring/database",
    "GET /api/monitoring/overview",
    "GET /api/monitoring/system",
    "GET /api/notifications",
    "GET /api/notifications/config",
    "GET /api/notifications/failed",
    "GET /api/notifications/history/:id",
    "GET /api/notifications/pending",
    "GET /api/notifications/push/subscriptions",
    "GET /api/notifications/push/users/:userId",
    "GET /api/notifications/stats",
    "GET /api/platform-configs",
    "GET /api/platform-configs/:id",
    "GET /api/platform-configs/:id/access-token",
    "GET /api/platform-configs/:id/hostA/users",
    "GET /api/platform-configs/default",
    "GET /api/platform-configs/enabled",
    "GET /api/platform-configs/type/:platformType",
    "GET /api/projects",
    "GET /api/projects/:projectId/config",
    "GET /api/projects/:projectId/members",
    "GET /api/projects/:projectId/merge-requests",
    "GET /api/projects/:projectId/pipelines",
    "GET /api/projects/:projectId/platform",
    "GET /api/projects/:projectId/workspace",
    "GET /api/projects/paginated",
    "GET /api/projects/stats",
    "GET /api/reviews",
    "GET /api/reviews/:reviewId",
    "GET /api/reviews/:reviewId/ai-logs",
    "GET /api/reviews/:reviewId/comments",
    "GET /api/reviews/:reviewId/feedbacks",
    "GET /api/reviews/:reviewId/files",
    "GET /api/reviews/:reviewId/files/progress",
    "GET /api/reviews/:reviewId/logs",
    "GET /api/reviews/:reviewId/rounds",
    "GET /api/reviews/manual/history",
    "GET /api/reviews/manual/merge-requests",
    "GET /api/reviews/manual/projects",
    "GET /api/reviews/manual/tasks/:taskId",
    "GET /api/reviews/manual/tasks/recent",
    "GET /api/reviews/rules/all",
    "GET /api/reviews/tasks",
    "GET /api/reviews/templates/all",
    "GET /api/runners",
    "GET /api/runners/:id",
    "GET /api/runners/tasks/pending",
    "PATCH /api/notifications/config",
    "PATCH /api/platform-configs/:id",
    "PATCH /api/projects/:projectId",
    "POST /api/monitoring/collect",
    "POST /api/notifications/clean",
    "POST /api/notifications/config",
    "POST /api/notifications/config/generate-vapid-keys",
    "POST /api/notifications/config/test-channel",
    "POST /api/notifications/push/clean",
    "POST /api/notifications/push/subscribe",
    "POST /api/notifications/push/touch",
    "POST /api/platform-configs",
    "POST /api/platform-configs/:id/default",
    "POST /api/platform-configs/oauth/hostA/auth-url",
    "POST /api/platform-configs/oauth/hostA/callback",
    "POST /api/platform-configs/oauth/hostA/refresh",
    "POST /api/platform-configs/test-connection",
    "POST /api/projects/:projectId/webhook/clear",
    "POST /api/projects/delete/batch",
    "POST /api/projects/sync/platform",
    "POST /api/projects/webhooks/batch",
    "POST /api/projects/webhooks/remove",
    "POST /api/projects/webhooks/verify",
    "POST /api/reviews/:reviewId/files/:fileId/retry",
    "POST /api/reviews/trigger-manual-review",
    "POST /api/runners/:id/heartbeat",
    "POST /api/runners/register",
    "POST /api/runners/tasks/:id/logs",
    "POST /api/runners/tasks/:id/result",
    "POST /api/runners/tasks/:id/status",
    "POST /api/webhook/hostA",
    "POST /api/webhook/hostB",
];

/// `design.md`'s login, keys, users, reset and AI configurations.
const DESIGN: &[&str] = &[
    "POST /api/auth/login",
    "POST /api/auth/logout",
    "GET /api/auth/me",
    "GET /api/api-keys",
    "POST /api/api-keys",
    "DELETE /api/api-keys/:id",
    "GET /api/users",
    "POST /api/users",
    "PATCH /api/users/:id",
    "POST /api/system/reset",
    "GET /api/ai-configs",
    "POST /api/ai-configs",
    "GET /api/ai-configs/:id",
    "PATCH /api/ai-configs/:id",
    "DELETE /api/ai-configs/:id",
    "POST /api/ai-configs/:id/default",
    "POST /api/ai-configs/test",
];

/// Ours beyond both: a user read by id, writing the templates and rules the
/// contract lists (`/reviews/templates/all`, `/reviews/rules/all`), and a
/// project's learnings and a merge request's conversations (issue 39), and a
/// commit's SARIF from CI (issue 40).
const OURS: &[&str] = &[
    "GET /api/users/:id",
    "POST /api/projects/:id/sarif",
    "GET /api/projects/:id/learnings",
    "POST /api/projects/:id/learnings",
    "PATCH /api/projects/:id/learnings/:learningId",
    "DELETE /api/projects/:id/learnings/:learningId",
    "GET /api/projects/:id/merge-requests/:iid/conversations",
    "POST /api/reviews/templates",
    "PATCH /api/reviews/templates/:id",
    "POST /api/reviews/rules",
    "PATCH /api/reviews/rules/:id",
];

/// `GET /api/{x}/:id` and `GET /api/{x}/{id}` alike: parameter names differ between
/// the contract and the routes, positions do not.
fn normalize(endpoint: &str) -> String {
    let (method, path) = endpoint.split_once(' ').expect("METHOD /path");
    let path: Vec<String> = path
        .split('/')
        .map(|s| {
            if s.starts_with(':') || (s.starts_with('{') && s.ends_with('}')) {
                "{}".to_owned()
            } else {
                s.to_owned()
            }
        })
        .collect();
    format!("{} {}", method.to_uppercase(), path.join("/"))
}

fn documented(doc: &Value) -> BTreeSet<String> {
    let mut ops = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in ["get", "post", "put", "patch", "delete"] {
            if item.get(method).is_some() {
                ops.insert(normalize(&format!("{method} {path}")));
            }
        }
    }
    ops
}

async fn document(app: &TestApp) -> Value {
    let response = app.client().get("/api/openapi.json").await;
    assert_eq!(
        response.headers()["content-type"].to_str().unwrap(),
        "application/json"
    );
    json(response, StatusCode::OK).await
}

#[tokio::test]
async fn the_document_describes_every_endpoint_and_nothing_else() {
    let app = TestApp::spawn().await;
    let doc = document(&app).await;
    assert!(
        doc["openapi"].as_str().unwrap().starts_with("3.1"),
        "{}",
        doc["openapi"]
    );

    let expected: BTreeSet<String> = CONTRACT
        .iter()
        .chain(DESIGN)
        .chain(OURS)
        .map(|e| normalize(e))
        .collect();
    let actual = documented(&doc);
    let missing: Vec<_> = expected.difference(&actual).collect();
    let unexpected: Vec<_> = actual.difference(&expected).collect();
    assert!(
        missing.is_empty() && unexpected.is_empty(),
        "not documented: {missing:#?}\ndocumented but not in the contract: {unexpected:#?}"
    );
}

/// The reverse direction at the HTTP level: each documented operation reaches a
/// handler (an unrouted one would get the fallback's "no route" 404 or a 405).
#[tokio::test]
async fn every_documented_operation_is_routed() {
    // Reset answers like an unknown route while it is disabled; enable it to see it.
    let app =
        TestApp::spawn_with(&[("RESET_DB_KEY", "a-reset-key-for-the-route-check".to_owned())])
            .await;
    let doc = document(&app).await;
    let client = reqwest::Client::new();
    let mut unrouted = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        let concrete: String = path
            .split('/')
            .map(|s| {
                if s == "{platform_type}" || s == "{platformType}" {
                    "hostA".to_owned()
                } else if s.starts_with('{') {
                    "00000000-0000-4000-8000-000000000000".to_owned()
                } else {
                    s.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("/");
        for method in ["get", "post", "put", "patch", "delete"] {
            if item.get(method).is_none() {
                continue;
            }
            let m = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            let response = client
                .request(m, app.url(&concrete))
                .header("content-type", "application/json")
                .body("{}")
                .send()
                .await
                .unwrap();
            let status = response.status();
            let body = response.text().await.unwrap_or_default();
            if status == StatusCode::METHOD_NOT_ALLOWED || body.contains("no route for") {
                unrouted.push(format!("{method} {path} -> {status}"));
            }
        }
    }
    assert!(
        unrouted.is_empty(),
        "documented but not routed: {unrouted:#?}"
    );
}

#[tokio::test]
async fn every_operation_is_described_once_with_its_errors() {
    let app = TestApp::spawn().await;
    let doc = document(&app).await;
    let mut ids = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let id = op["operationId"].as_str().unwrap_or_default().to_owned();
            assert!(!id.is_empty(), "{method} {path} has no operationId");
            assert!(ids.insert(id.clone()), "operationId {id} is used twice");
            assert!(
                op["summary"].as_str().is_some_and(|s| !s.is_empty()),
                "{method} {path} has no summary"
            );
            let responses = op["responses"].as_object().unwrap();
            assert!(
                responses.keys().any(|s| s.starts_with('2')),
                "{method} {path} documents no success"
            );
            for status in ["400", "500"] {
                assert!(
                    responses.contains_key(status),
                    "{method} {path} lacks {status}"
                );
            }
        }
    }
}

#[tokio::test]
async fn the_reference_page_works_offline() {
    let app = TestApp::spawn().await;
    let client = app.client();
    // The address as people type it, without the slash, leads to the page.
    let bare = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(app.url("/api/docs"))
        .send()
        .await
        .unwrap();
    assert_eq!(bare.status(), StatusCode::PERMANENT_REDIRECT);
    assert_eq!(bare.headers()["location"], "/api/docs/");
    let followed = reqwest::get(app.url("/api/docs")).await.unwrap();
    assert!(followed.text().await.unwrap().contains("swagger-ui"));
    let page = client.get("/api/docs/").await;
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap();
    assert!(html.contains("swagger-ui"), "{html}");
    // Every asset is served from here: no CDN.
    for asset in [
        "/api/docs/swagger-ui.css",
        "/api/docs/swagger-ui-bundle.js",
        "/api/docs/swagger-initializer.js",
    ] {
        let response = client.get(asset).await;
        assert_eq!(response.status(), StatusCode::OK, "{asset}");
    }
    assert!(
        !html.contains("https://"),
        "the page loads nothing from elsewhere: {html}"
    );
    let init = client
        .get("/api/docs/swagger-initializer.js")
        .await
        .text()
        .await
        .unwrap();
    assert!(init.contains("/api/openapi.json"), "{init}");
}
