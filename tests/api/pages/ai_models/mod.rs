//! The AI models page (`/ai-configs`): adding, editing (a blank key keeps the stored
//! one), refusals shown beside their fields, deleting one a project uses, the default,
//! the test, who may do what; and a review's AI cost on its page. No page ever shows
//! a key.

mod adding;
mod costs;
mod default_and_delete;
mod fallbacks;
mod refusals;
mod safety;

use super::{form_token, post_form};
use crate::ai_configs::{config, create, models_server};
use crate::helpers::{Session, TestApp, json};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const KEY: &str = "sk-page-secret-0123456789";

/// Posts a page form as `session` and follows the redirect, as a browser does: the
/// final status and page (with the flash message it carries).
async fn submit(session: &Session, path: &str, fields: &[(&str, &str)]) -> (StatusCode, String) {
    let token = form_token(session).await;
    let mut form: Vec<(&str, &str)> = fields.to_vec();
    form.push(("csrf", &token));
    let r = session
        .request(Method::POST, path)
        .form(&form)
        .send()
        .await
        .unwrap();
    (r.status(), r.text().await.unwrap())
}

async fn page(session: &Session, path: &str) -> String {
    let r = session.get(path).await;
    assert_eq!(r.status(), StatusCode::OK, "{path}");
    r.text().await.unwrap()
}

/// The configurations as the API lists them.
async fn listed(session: &Session) -> Vec<Value> {
    json(session.get("/api/ai-configs").await, StatusCode::OK).await["data"]["items"]
        .as_array()
        .unwrap()
        .clone()
}

/// The fields of the form for a configuration at `endpoint`.
fn fields<'a>(name: &'a str, endpoint: &'a str, key: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("name", name),
        ("provider", "openai-compatible"),
        ("endpoint", endpoint),
        ("api_key", key),
        ("model", "model-b"),
        ("max_concurrency", "5"),
        ("timeout_secs", "60"),
        ("input_price_per_mtok", "0.15"),
        ("output_price_per_mtok", "0.6"),
    ]
}
