//! Bad input refused, naming each field.

use super::*;

#[tokio::test]
async fn bad_input_is_refused_naming_each_field() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let bad = expect_error(
        root.post(
            "/api/ai-configs",
            json!({
                "name": "   ", "endpoint": "ftp://ai.example.com", "model": "  ",
                "maxConcurrency": 0, "timeoutSecs": 3601, "inputPricePerMTok": -1
            }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    let mut named: Vec<&str> = bad["error"]["details"]["fields"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    named.sort_unstable();
    assert_eq!(
        named,
        [
            "endpoint",
            "inputPricePerMTok",
            "maxConcurrency",
            "model",
            "name",
            "timeoutSecs"
        ]
    );
    let unknown = expect_error(
        root.post(
            "/api/ai-configs",
            json!({ "name": "a", "endpoint": "https://a.example.com/v1", "model": "m", "temperature": 0.2 }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "INVALID_BODY",
    )
    .await;
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("temperature")
    );
    let provider = expect_error(
        root.post(
            "/api/ai-configs",
            json!({ "name": "a", "provider": "x", "endpoint": "https://a.example.com/v1", "model": "m" }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "INVALID_BODY",
    )
    .await;
    assert!(
        provider["error"]["message"]
            .as_str()
            .unwrap()
            .contains("openai-compatible"),
        "{provider}"
    );
    expect_error(
        root.post(
            "/api/ai-configs",
            json!({ "name": "a", "endpoint": "https://a.example.com/v1" }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "INVALID_BODY",
    )
    .await;

    let stored = create(&root, config("a", "https://a.example.com/v1", "sk-a", "m")).await;
    let id = stored["id"].as_str().unwrap();
    let patch = expect_error(
        root.patch(
            &format!("/api/ai-configs/{id}"),
            json!({ "timeoutSecs": 0, "endpoint": "https://a.example.com/v1?x=1" }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert!(patch["error"]["details"]["fields"]["timeoutSecs"].is_array());
    assert!(patch["error"]["details"]["fields"]["endpoint"].is_array());

    let unknown_id = Uuid::new_v4();
    let url = format!("/api/ai-configs/{unknown_id}");
    expect_error(root.get(&url).await, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    expect_error(
        root.patch(&url, json!({ "name": "b" })).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    expect_error(root.delete(&url).await, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    expect_error(
        root.post(&format!("{url}/default"), json!({})).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    expect_error(
        root.get("/api/ai-configs/not-a-uuid").await,
        StatusCode::BAD_REQUEST,
        "INVALID_PATH",
    )
    .await;
}
