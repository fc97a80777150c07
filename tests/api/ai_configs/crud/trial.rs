//! Trying settings answers with the outcome and stores nothing.

use super::*;

#[tokio::test]
async fn trying_settings_answers_200_with_the_outcome_and_stores_nothing() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let server = models_server("sk-good").await;
    let endpoint = format!("{}/v1", server.uri());
    let test = |body: Value| {
        let root = &root;
        async move {
            json(
                root.post("/api/ai-configs/test", body).await,
                StatusCode::OK,
            )
            .await["data"]
                .clone()
        }
    };

    let ok = test(json!({ "endpoint": endpoint, "apiKey": "sk-good", "model": "model-b" })).await;
    assert_eq!(
        (ok["success"].clone(), ok["details"]["model"].clone()),
        (json!(true), json!("model-b"))
    );
    assert!(ok["details"]["responseTimeMs"].is_u64());
    let refused = test(json!({ "endpoint": endpoint, "apiKey": "sk-wrong" })).await;
    assert_eq!(refused["success"], false);
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("rejected the API key"),
        "{refused}"
    );
    assert!(!refused.to_string().contains("sk-wrong"));
    let unreachable = test(json!({ "endpoint": "http://127.0.0.1:9/v1", "timeoutSecs": 2 })).await;
    assert_eq!(unreachable["success"], false);
    assert_eq!(
        server
            .received_requests()
            .await
            .unwrap()
            .iter()
            .filter(|r| r.headers["authorization"] == "Bearer sk-wrong")
            .count(),
        1,
        "a test makes one attempt"
    );

    // A stored configuration's key stands behind `***`.
    let stored = create(&root, config("B", &endpoint, "sk-good", "model-b")).await;
    let with_stored = test(json!({ "id": stored["id"], "apiKey": "***" })).await;
    assert_eq!(with_stored["success"], true, "{with_stored}");
    assert_eq!(
        json(root.get("/api/ai-configs").await, StatusCode::OK).await["data"]["items"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "trying stores nothing"
    );

    // `{}`, as the document allows: the configuration reviews use by default. No
    // stored default and no PROVIDERA_ENDPOINT here: an answer that says so.
    let nothing = test(json!({})).await;
    assert_eq!(nothing["success"], false, "{nothing}");
    assert!(
        nothing["message"]
            .as_str()
            .unwrap()
            .contains("no configuration is the default"),
        "{nothing}"
    );
    // Once a stored one is the default, `{}` tries it, with its key, at its endpoint.
    let before = server.received_requests().await.unwrap().len();
    json(
        root.post(
            &format!("/api/ai-configs/{}/default", stored["id"].as_str().unwrap()),
            json!({}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let default = test(json!({})).await;
    assert_eq!(default["success"], true, "{default}");
    assert_eq!(default["details"]["model"], "model-b");
    assert_eq!(server.received_requests().await.unwrap().len(), before + 1);
    expect_error(
        root.post(
            "/api/ai-configs/test",
            json!({ "endpoint": endpoint, "name": "x" }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "INVALID_BODY",
    )
    .await;
}
