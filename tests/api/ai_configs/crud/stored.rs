//! A configuration stored with its key encrypted and shown masked.

use super::*;

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
            "outputPricePerMTok": 0.6, "isDefault": false, "fallbackIds": [],
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
