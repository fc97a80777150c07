//! AI configurations end to end: the admin API (`/api/ai-configs`), who may use it,
//! and reviews (workers' and runners') sent to the configuration of their project.

mod cost;
mod crud;
mod fallback;
mod health;
mod permissions;
mod routing;

use crate::helpers::{Session, json};
use reqwest::StatusCode;
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// Creates a configuration (as `session`) and returns it as the API shows it.
pub(crate) async fn create(session: &Session, body: Value) -> Value {
    json(session.post("/api/ai-configs", body).await, StatusCode::OK).await["data"]["config"]
        .clone()
}

/// Binds `project` to the configuration `config_id` (`null`: back to the default)
/// with the project PATCH, as `session`.
pub(crate) async fn bind(session: &Session, project: &str, config_id: Value) {
    json(
        session
            .patch(
                &format!("/api/projects/{project}"),
                json!({ "aiConfigId": config_id }),
            )
            .await,
        StatusCode::OK,
    )
    .await;
}

/// A configuration body for `endpoint` (the API base) with the key and model given.
pub(crate) fn config(name: &str, endpoint: &str, key: &str, model: &str) -> Value {
    json!({ "name": name, "endpoint": endpoint, "apiKey": key, "model": model })
}

/// An OpenAI-compatible server whose `GET /v1/models` accepts only `key`.
pub(crate) async fn models_server(key: &str) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/v1/models"))
        .and(header("authorization", format!("Bearer {key}").as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({ "object": "list", "data": [{ "id": "model-b", "object": "model" }] }),
        ))
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/v1/models"))
        .respond_with(ResponseTemplate::new(401).set_body_json(
            json!({ "error": { "message": "Incorrect API key provided", "type": "invalid_request_error" } }),
        ))
        .mount(&server)
        .await;
    server
}
