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

/// The user messages of a chat completion request, joined: the round's shared
/// part (the MR, its overview, the guidance) and the file's prompt; "" for none.
#[must_use]
pub fn prompt_of(request: &Request) -> String {
    serde_json::from_slice::<Value>(&request.body)
        .ok()
        .map(|body| {
            body["messages"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|m| m["role"] == "user")
                .filter_map(|m| m["content"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// The file prompts the fake model was asked (chat completions, the MR summary
/// calls left out), in the order they came.
///
/// # Panics
/// When the server does not record requests.
pub async fn file_prompts(ai: &MockServer) -> Vec<String> {
    ai.received_requests()
        .await
        .expect("the fake model records requests")
        .iter()
        .filter(|r| r.url.path().ends_with("/chat/completions"))
        .filter(|r| !is_summary_call(r))
        .map(prompt_of)
        .collect()
}

/// Whether a request is a round's last call, the MR's summary note (its answer
/// schema is `mr_summary`).
#[must_use]
pub fn is_summary_call(request: &Request) -> bool {
    serde_json::from_slice::<Value>(&request.body)
        .ok()
        .is_some_and(|body| body["response_format"]["json_schema"]["name"] == "mr_summary")
}

/// The summary note the stand-in writes: a fixed sentence, each file of the
/// prompt with "changed", no risk.
#[must_use]
pub fn summary_answer(prompt: &str) -> Value {
    let files: Vec<Value> = reviewd_domain::review::mr_summary::files_in_prompt(prompt)
        .map(|path| json!({ "path": path, "change": "changed" }))
        .collect();
    json!({ "summary": SUMMARY, "files": files, "risks": [] })
}

/// What the stand-in's summary note says.
pub const SUMMARY: &str = "The merge request, as the fake model sums it up.";

/// Starts the stand-in: every completion is answered after `latency` with
/// `answer(prompt)` (the review JSON the model is asked for), or a round's
/// summary call with [`summary_answer`], echoing the model asked.
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
            let prompt = prompt_of(request);
            let content = if is_summary_call(request) {
                summary_answer(&prompt)
            } else {
                answer(&prompt)
            }
            .to_string();
            ResponseTemplate::new(200)
                .set_delay(latency)
                .set_body_json(completion(&model, &content))
        })
        .mount(&server)
        .await;
    server
}
