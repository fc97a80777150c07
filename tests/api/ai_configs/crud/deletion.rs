//! A configuration in use is not deleted.

use super::*;

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
