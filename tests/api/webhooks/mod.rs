//! The webhook receivers with real GitLab/GitHub payloads: GitLab's events (`gitlab`),
//! GitHub's signatures (`github`), and what both receivers share at the edge (`edge`:
//! hostile bodies, config changes across replicas). The helpers are here.

mod edge;
mod github;
mod gitlab;

use crate::helpers::{TestApp, create_github_config, create_gitlab_config, expect_error, json};
use reqwest::StatusCode;
use reviewd_crypto::hmac_sha256_hex;
use reviewd_testkit::{FakeGithub, FakeGitlab, github_repo};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

pub(super) fn fixture(platform: &str, name: &str) -> Value {
    let file = format!(
        "{}/fixtures/webhooks/{platform}/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

pub(super) async fn post_gitlab_webhook(
    app: &TestApp,
    token: Option<&str>,
    delivery: Option<&str>,
    body: &Value,
) -> reqwest::Response {
    let mut r = reqwest::Client::new()
        .post(app.url("/api/webhook/hostA"))
        .json(body);
    if let Some(t) = token {
        r = r.header("X-Gitlab-Token", t);
    }
    if let Some(d) = delivery {
        r = r.header("X-Gitlab-Event-UUID", d);
    }
    r.send().await.unwrap()
}

pub(super) async fn post_github_webhook(
    app: &TestApp,
    event: Option<&str>,
    secret: Option<&str>,
    body: &[u8],
) -> reqwest::Response {
    let mut r = reqwest::Client::new()
        .post(app.url("/api/webhook/hostB"))
        .header("content-type", "application/json")
        .body(body.to_vec());
    if let Some(e) = event {
        r = r.header("X-GitHub-Event", e);
    }
    if let Some(s) = secret {
        r = r.header(
            "X-Hub-Signature-256",
            format!("sha256={}", hmac_sha256_hex(s.as_bytes(), body)),
        );
    }
    r.send().await.unwrap()
}

/// An app with the fixture's GitLab project (id 1) synced under a config whose
/// webhook secret is `hook-secret-a`.
pub(super) async fn gitlab_app() -> (TestApp, FakeGitlab, String) {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start("glpat-hooks").await;
    gitlab.with_projects(1, "svc").await;
    let config = create_gitlab_config(&app, &gitlab).await;
    crate::review_pipeline::sync_projects(&app, &config).await;
    (app, gitlab, config)
}

pub(super) async fn tasks(app: &TestApp) -> Vec<Value> {
    json(
        app.root()
            .await
            .get("/api/reviews/tasks?pageSize=100")
            .await,
        StatusCode::OK,
    )
    .await["data"]["items"]
        .as_array()
        .unwrap()
        .clone()
}
