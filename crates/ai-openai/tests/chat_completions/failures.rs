//! Retries of 429 and 5xx; failures reported by kind; truncated, refused and slow answers.

use super::*;

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
    let cases: [Case; 8] = [
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
        // An unknown model (OpenAI's shape, then Ollama's) is told apart from a
        // wrong path, which is no model's fault.
        (
            ResponseTemplate::new(404).set_body_json(json!({ "error": {
                "message": "The model `gpt-9` does not exist or you do not have access to it.",
                "type": "invalid_request_error", "code": "model_not_found" } })),
            |e| matches!(e, AiError::ModelNotFound(_)),
        ),
        (
            ResponseTemplate::new(404).set_body_json(
                json!({ "error": "model \"llama9\" not found, try pulling it first" }),
            ),
            |e| matches!(e, AiError::ModelNotFound(_)),
        ),
        (
            ResponseTemplate::new(404).set_body_string("Cannot POST /v1/models/chat/completions"),
            |e| matches!(e, AiError::Rejected(_)),
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
