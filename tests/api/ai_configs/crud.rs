//! Storing, changing, electing and deleting configurations, and trying settings.

use super::{bind, config, create, models_server};
use crate::helpers::{TestApp, expect_error, json};
use reqwest::StatusCode;
use serde_json::{Value, json};
use uuid::Uuid;

#[tokio::test]
async fn a_configuration_is_stored_with_its_key_encrypted_and_shown_masked() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let created = create(
        &root,
        json!({
            "name": "  Team B  ", "endpoint": "https://ai-b.example.com/v1/", "apiKey": "sk-secret-b",
            "model": "model-b", "maxConcurrency": 5, "timeoutSecs": 30,
            "inputPricePerMTok": 0.15, "outputPricePerMTok": 0.6
        }),
    )
    .await;
    let id = created["id"].as_str().unwrap().to_owned();
    assert_eq!(
        created,
        json!({
            "id": id, "name": "Team B", "provider": "openai-compatible",
            "endpoint": "https://ai-b.example.com/v1", "apiKey": "***", "model": "model-b",
            "maxConcurrency": 5, "timeoutSecs": 30, "inputPricePerMTok": 0.15,
            "outputPricePerMTok": 0.6, "isDefault": false,
            "createdAt": created["createdAt"], "updatedAt": created["updatedAt"]
        })
    );
    let sealed = app.sql(&format!(
        "SELECT api_key_enc FROM ai_configs WHERE id = '{id}'"
    ));
    assert!(
        sealed.starts_with("v1:") && !sealed.contains("sk-secret-b"),
        "encrypted at rest: {sealed}"
    );
    let list = json(root.get("/api/ai-configs").await, StatusCode::OK).await;
    let one = json(
        root.get(&format!("/api/ai-configs/{id}")).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(list["data"]["items"][0]["apiKey"], "***");
    assert_eq!(one["data"]["config"]["apiKey"], "***");
    assert_eq!(
        list["data"]["builtin"],
        json!({ "name": "providerA", "endpoint": null, "model": "gpt-4o-mini", "isDefault": true })
    );

    // `***` keeps the key, a new one replaces it, "" clears it; null clears a price.
    let patch = |body: Value| {
        let root = &root;
        let url = format!("/api/ai-configs/{id}");
        async move { json(root.patch(&url, body).await, StatusCode::OK).await["data"]["config"].clone() }
    };
    let kept = patch(json!({ "apiKey": "***", "model": "model-b2" })).await;
    assert_eq!(
        (kept["apiKey"].clone(), kept["model"].clone()),
        (json!("***"), json!("model-b2"))
    );
    assert_eq!(
        app.sql(&format!(
            "SELECT api_key_enc FROM ai_configs WHERE id = '{id}'"
        )),
        sealed,
        "the mask keeps the stored key"
    );
    let priced = patch(json!({ "inputPricePerMTok": null })).await;
    assert_eq!(
        (
            priced["inputPricePerMTok"].clone(),
            priced["outputPricePerMTok"].clone()
        ),
        (Value::Null, json!(0.6))
    );
    let cleared = patch(json!({ "apiKey": "" })).await;
    assert_eq!(cleared["apiKey"], Value::Null);
    assert_eq!(
        app.sql(&format!(
            "SELECT api_key_enc IS NULL FROM ai_configs WHERE id = '{id}'"
        )),
        "t"
    );
    for body in [list, one] {
        assert!(
            !body.to_string().contains("sk-secret-b"),
            "no key in any answer"
        );
    }
}

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

#[tokio::test]
async fn the_default_moves_and_can_be_handed_back_to_providera() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let a = create(
        &root,
        json!({ "name": "A", "endpoint": "https://a.example.com/v1", "model": "m", "isDefault": true }),
    )
    .await;
    let b = create(&root, config("B", "https://b.example.com/v1", "sk-b", "m")).await;
    assert_eq!(
        (a["isDefault"].clone(), b["isDefault"].clone()),
        (json!(true), json!(false))
    );
    let defaults = |list: &Value| -> Vec<(String, bool)> {
        list["data"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["name"].as_str().unwrap().to_owned(),
                    c["isDefault"].as_bool().unwrap(),
                )
            })
            .collect()
    };
    let b_id = b["id"].as_str().unwrap();
    json(
        root.post(&format!("/api/ai-configs/{b_id}/default"), json!({}))
            .await,
        StatusCode::OK,
    )
    .await;
    let list = json(root.get("/api/ai-configs").await, StatusCode::OK).await;
    assert_eq!(defaults(&list), [("A".into(), false), ("B".into(), true)]);
    assert_eq!(list["data"]["builtin"]["isDefault"], false);

    let undefaulted = json(
        root.patch(
            &format!("/api/ai-configs/{b_id}"),
            json!({ "isDefault": false }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(undefaulted["data"]["config"]["isDefault"], false);
    let list = json(root.get("/api/ai-configs").await, StatusCode::OK).await;
    assert_eq!(defaults(&list), [("A".into(), false), ("B".into(), false)]);
    assert_eq!(
        list["data"]["builtin"]["isDefault"], true,
        "PROVIDERA_* again"
    );

    json(
        root.patch(
            &format!("/api/ai-configs/{b_id}"),
            json!({ "isDefault": true }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    json(
        root.delete(&format!("/api/ai-configs/{b_id}")).await,
        StatusCode::OK,
    )
    .await;
    let list = json(root.get("/api/ai-configs").await, StatusCode::OK).await;
    assert_eq!(
        defaults(&list),
        [("A".into(), false)],
        "the default is not handed on"
    );
    assert_eq!(list["data"]["builtin"]["isDefault"], true);
}

#[tokio::test]
async fn a_configuration_in_use_is_not_deleted_and_the_refusal_names_the_project() {
    let gitlab = crate::review_pipeline::gitlab_with_one_mr().await;
    let app = TestApp::spawn().await;
    crate::review_pipeline::setup_project(&app, &gitlab).await;
    let root = app.root().await;
    let used = create(
        &root,
        config("used", "https://a.example.com/v1", "sk-a", "m"),
    )
    .await;
    let spare = create(
        &root,
        config("spare", "https://b.example.com/v1", "sk-b", "m"),
    )
    .await;
    let used_id = used["id"].as_str().unwrap();
    let project = app.sql("SELECT id FROM projects LIMIT 1");
    bind(&root, &project, json!(used_id)).await;

    let refused = expect_error(
        root.delete(&format!("/api/ai-configs/{used_id}")).await,
        StatusCode::BAD_REQUEST,
        "PROJECTS_LINKED",
    )
    .await;
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("group/svc-1"),
        "{refused}"
    );
    let spare_id = spare["id"].as_str().unwrap();
    let deleted = json(
        root.delete(&format!("/api/ai-configs/{spare_id}")).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(deleted["data"]["success"], true);
    expect_error(
        root.get(&format!("/api/ai-configs/{spare_id}")).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;

    bind(&root, &project, Value::Null).await;
    json(
        root.delete(&format!("/api/ai-configs/{used_id}")).await,
        StatusCode::OK,
    )
    .await;
}

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

    expect_error(
        root.post("/api/ai-configs/test", json!({ "apiKey": "sk-good" }))
            .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
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
