//! The adapter against an OpenAI-compatible fake: retries, and the ways an answer
//! can be unusable beyond the port's contract suite (`contract.rs`).
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

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

#[tokio::test]
async fn retries_429_and_5xx_then_succeeds() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(429).insert_header("retry-after", "0"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(completion("ok")))
        .mount(&server)
        .await;
    let answer = provider(&server, Duration::from_secs(5))
        .complete(&request())
        .await
        .unwrap();
    assert_eq!(answer.content, "ok");
    assert_eq!(server.received_requests().await.unwrap().len(), 3);
}

#[tokio::test]
async fn bounded_failures_are_reported_by_kind() {
    let cases: [Case; 5] = [
        (ResponseTemplate::new(429), |e| {
            matches!(e, AiError::RateLimited { .. })
        }),
        (ResponseTemplate::new(500), |e| {
            matches!(e, AiError::Unavailable(_))
        }),
        (
            ResponseTemplate::new(400).set_body_json(
                json!({ "message": "This model's maximum context length is 8192 tokens" }),
            ),
            |e| matches!(e, AiError::ContextTooLong(_)),
        ),
        (
            ResponseTemplate::new(200).set_body_string("<html>gateway</html>"),
            |e| matches!(e, AiError::InvalidResponse(_)),
        ),
        (
            ResponseTemplate::new(200).set_body_json(json!({ "choices": [] })),
            |e| matches!(e, AiError::InvalidResponse(_)),
        ),
    ];
    for (response, expected) in cases {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(response)
            .mount(&server)
            .await;
        let err = provider(&server, Duration::from_secs(5))
            .complete(&request())
            .await
            .unwrap_err();
        assert!(expected(&err), "{err:?}");
        assert!(
            server.received_requests().await.unwrap().len() <= 3,
            "bounded attempts"
        );
    }
}

#[tokio::test]
async fn truncated_refused_and_slow_answers_are_failures() {
    let server = MockServer::start().await;
    let mut cut = completion("{\"comm");
    cut["choices"][0]["finish_reason"] = json!("length");
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(cut))
        .mount(&server)
        .await;
    assert!(matches!(
        provider(&server, Duration::from_secs(5))
            .complete(&request())
            .await,
        Err(AiError::InvalidResponse(_))
    ));

    let server = MockServer::start().await;
    let mut refused = completion("");
    refused["choices"][0]["message"]["refusal"] = json!("I can't help with that");
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(refused))
        .mount(&server)
        .await;
    assert!(matches!(
        provider(&server, Duration::from_secs(5))
            .complete(&request())
            .await,
        Err(AiError::Rejected(_))
    ));

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(completion("late"))
                .set_delay(Duration::from_secs(2)),
        )
        .mount(&server)
        .await;
    let started = std::time::Instant::now();
    let err = provider(&server, Duration::from_millis(200))
        .complete(&request())
        .await
        .unwrap_err();
    assert!(
        matches!(err, AiError::Unavailable(ref m) if m.contains("no answer")),
        "{err:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "timeouts bound the call"
    );
}

/// The round's shared part goes as its own message between the system prompt and
/// the file's (the prefix providers cache), and the provider's cached-token count
/// is read back.
#[tokio::test]
async fn the_shared_prefix_is_its_own_message_and_cached_tokens_are_read() {
    let server = MockServer::start().await;
    let mut body = completion("ok");
    body["usage"]["prompt_tokens_details"] = json!({ "cached_tokens": 96, "audio_tokens": 0 });
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(body))
        .mount(&server)
        .await;
    let with_shared = AiRequest {
        shared: Some("Merge request: Fix the cache".into()),
        ..request()
    };
    let answer = provider(&server, Duration::from_secs(5))
        .complete(&with_shared)
        .await
        .unwrap();
    assert_eq!((answer.usage.prompt, answer.usage.cached), (120, 96));
    let sent: Value = server.received_requests().await.unwrap()[0]
        .body_json()
        .unwrap();
    let roles: Vec<(&str, &str)> = sent["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["role"].as_str().unwrap(), m["content"].as_str().unwrap()))
        .collect();
    assert_eq!(
        roles,
        [
            ("system", "You review code."),
            ("user", "Merge request: Fix the cache"),
            ("user", "diff here"),
        ]
    );

    // Without the details the cached count is 0.
    server.reset().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(completion("ok")))
        .mount(&server)
        .await;
    let plain = provider(&server, Duration::from_secs(5))
        .complete(&request())
        .await
        .unwrap();
    assert_eq!(plain.usage.cached, 0);
}
