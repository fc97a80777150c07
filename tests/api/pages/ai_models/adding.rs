//! A model added on the page, listed, and edited without retyping its key.

use super::*;

#[tokio::test]
async fn a_model_added_on_the_page_is_listed_and_edited_with_a_blank_key_keeping_the_stored_one() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let server = models_server(KEY).await;
    let endpoint = format!("{}/v1", server.uri());

    let (status, list) = submit(
        &root,
        "/ai-configs/new",
        &fields("Team model", &endpoint, KEY),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert!(list.contains("Added “Team model”."), "no flash: {list}");
    for shown in [
        "Team model",
        endpoint.as_str(),
        "model-b",
        "$0.15",
        "$0.60",
        "60 s",
        "***",
    ] {
        assert!(list.contains(shown), "{shown} is not listed");
    }
    let stored = listed(&root).await;
    assert_eq!(stored.len(), 1);
    assert_eq!(
        (
            &stored[0]["maxConcurrency"],
            &stored[0]["apiKey"],
            &stored[0]["isDefault"]
        ),
        (&json!(5), &json!("***"), &json!(false))
    );
    let id = stored[0]["id"].as_str().unwrap().to_owned();

    // Renamed, the input price emptied (cleared), the key field left blank (kept).
    let edit = page(&root, &format!("/ai-configs/{id}")).await;
    assert!(edit.contains("stored (***): leave empty to keep it"));
    let mut changed = fields("Renamed model", &endpoint, "");
    changed.retain(|(k, _)| *k != "input_price_per_mtok");
    changed.push(("input_price_per_mtok", ""));
    let (status, list) = submit(&root, &format!("/ai-configs/{id}"), &changed).await;
    assert_eq!(status, StatusCode::OK);
    assert!(list.contains("Saved “Renamed model”."));
    let stored = &listed(&root).await[0];
    assert_eq!(stored["name"], "Renamed model");
    assert_eq!(stored["inputPricePerMTok"], Value::Null);
    assert_eq!(stored["apiKey"], "***", "the blank field removed the key");
    // The kept key is the one typed: the server that takes only it says so.
    let (status, tested) = submit(&root, &format!("/ai-configs/{id}/test"), &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        tested.contains("“Renamed model” works: reachable, key accepted"),
        "{tested}"
    );
    let sent = server.received_requests().await.unwrap();
    assert!(
        sent.iter()
            .all(|r| r.headers["authorization"] == format!("Bearer {KEY}").as_str()),
        "another key was sent"
    );

    // Removing the key on purpose is a box to tick; then the test is refused by the server.
    let mut cleared = fields("Renamed model", &endpoint, "");
    cleared.push(("clear_api_key", "on"));
    submit(&root, &format!("/ai-configs/{id}"), &cleared).await;
    assert_eq!(listed(&root).await[0]["apiKey"], Value::Null);
    let (_, list) = submit(&root, &format!("/ai-configs/{id}/test"), &[]).await;
    assert!(list.contains("“Renamed model” failed:"), "{list}");

    for path in [
        "/ai-configs",
        &format!("/ai-configs/{id}"),
        "/ai-configs/new",
    ] {
        assert!(
            !page(&root, path).await.contains(KEY),
            "{path} shows the key"
        );
    }
    assert!(!tested.contains(KEY) && !list.contains(KEY));
}
