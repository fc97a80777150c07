//! The adapter against an OpenAI-compatible fake: retries, and the ways an answer
//! can be unusable beyond the port's contract suite (`contract.rs`).
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

mod caching;
mod failures;

use reviewd_ai_openai::OpenAiProvider;
use reviewd_domain::model::SecretString;
use reviewd_domain::ports::{AiError, AiProvider, AiRequest};
use reviewd_http::{HttpClient, RetryPolicy};
use serde_json::{Value, json};
use std::time::Duration;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

/// A fake answer and the failure it must produce.
type Case = (ResponseTemplate, fn(&AiError) -> bool);

fn provider(server: &MockServer, timeout: Duration) -> OpenAiProvider {
    let http = HttpClient::new(RetryPolicy {
        timeout,
        ..RetryPolicy::fast()
    })
    .unwrap();
    OpenAiProvider::new(
        http,
        "providerA",
        &format!("{}/v1/", server.uri()),
        Some(SecretString::new("sk-test")),
    )
}

fn request() -> AiRequest {
    AiRequest {
        model: "gpt-test".into(),
        system: "You review code.".into(),
        shared: None,
        user: "diff here".into(),
        max_tokens: Some(800),
        temperature: Some(0.1),
        json_schema: Some(("review".into(), json!({ "type": "object" }))),
    }
}

fn completion(content: &str) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1_800_000_000, "model": "gpt-test-2026",
        "choices": [{ "index": 0, "message": { "role": "assistant", "content": content, "refusal": null }, "finish_reason": "stop" }],
        "usage": { "prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150 }
    })
}
