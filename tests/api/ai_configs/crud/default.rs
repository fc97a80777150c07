//! The default configuration moves, and can be handed back to PROVIDERA.

use super::*;

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
