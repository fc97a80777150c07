//! An OpenAI-compatible AI provider stand-in: `POST /v1/chat/completions` answered
//! in the real API's shape, after a fixed latency, with content a test computes
//! from the prompt. Every request stays recorded on the returned `MockServer`.

use serde_json::{Value, json};
use std::time::Duration;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

/// The token counts every answer reports: prompt, completion (the total is their sum).
pub const USAGE: (u64, u64) = (100, 20);

/// A chat completion whose message is `content`, as the API answers for `model`.
#[must_use]
pub fn completion(model: &str, content: &str) -> Value {
    json!({
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "model": model,
        "choices": [{ "index": 0, "message": { "role": "assistant", "content": content }, "finish_reason": "stop" }],
        "usage": { "prompt_tokens": USAGE.0, "completion_tokens": USAGE.1, "total_tokens": USAGE.0 + USAGE.1 },
    })
}

/// The user message of a chat completion request (the file's prompt), or "".
#[must_use]
pub fn prompt_of(request: &Request) -> String {
    serde_json::from_slice::<Value>(&request.body)
        .ok()
        .and_then(|body| body["messages"][1]["content"].as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Starts the stand-in: every completion is answered after `latency` with
/// `answer(prompt)` (the review JSON the model is asked for), echoing the model asked.
/// Tests mount other answers on the server with a higher priority to fail or delay
/// some calls.
pub async fn fake_openai(latency: Duration, answer: fn(&str) -> Value) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(move |request: &Request| {
            let model = serde_json::from_slice::<Value>(&request.body)
                .ok()
                .and_then(|body| body["model"].as_str().map(str::to_owned))
                .unwrap_or_default();
            let content = answer(&prompt_of(request)).to_string();
            ResponseTemplate::new(200)
                .set_delay(latency)
                .set_body_json(completion(&model, &content))
        })
        .mount(&server)
        .await;
    server
}
