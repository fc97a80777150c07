//! The default model's badge, and a model in use that cannot be deleted.

use super::*;

#[tokio::test]
async fn a_model_a_project_uses_is_not_deleted_and_the_page_names_the_project() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let id = create(&root, config("Bound", "https://a.example.com/v1", KEY, "m")).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.sql(
        "INSERT INTO platform_configs (name, platform_type, base_url) VALUES ('G', 'hostA', 'https://gitlab.example.com')",
    );
    app.sql(&format!(
        "INSERT INTO projects (platform_config_id, platform_type, platform_project_id, name, full_path, web_url, ai_config_id) \
         SELECT id, 'hostA', '7', 'svc', 'group/svc', 'https://gitlab.example.com/group/svc', '{id}' FROM platform_configs"
    ));
    let (status, list) = submit(&root, &format!("/ai-configs/{id}/delete"), &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        list.contains("flash error") && list.contains("use this AI configuration: group/svc"),
        "{list}"
    );
    assert!(
        list.contains("data-config=\"Bound\""),
        "it is gone from the list"
    );
    assert_eq!(listed(&root).await.len(), 1);

    app.sql("UPDATE projects SET ai_config_id = NULL");
    let (_, list) = submit(&root, &format!("/ai-configs/{id}/delete"), &[]).await;
    assert!(list.contains("Deleted “Bound”."));
    assert!(listed(&root).await.is_empty());
    // An unknown one is a 404 page, not a flash.
    let r = post_form(&app, &root, &format!("/ai-configs/{id}/delete"), &[]).await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn make_default_moves_the_badge_and_the_built_in_model_is_listed_only_while_it_applies() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let first = page(&root, "/ai-configs").await;
    assert!(
        first.contains("id=\"builtin-ai\"") && first.contains("No AI model is configured"),
        "the built-in model is not shown on the first run"
    );
    let a = create(&root, config("A", "https://a.example.com/v1", "sk-a", "m")).await;
    let b = create(&root, config("B", "https://b.example.com/v1", "sk-b", "m")).await;
    let b_id = b["id"].as_str().unwrap();
    let (status, list) = submit(&root, &format!("/ai-configs/{b_id}/default"), &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(list.contains("“B” is now the default"), "{list}");
    assert!(
        !list.contains("id=\"builtin-ai\""),
        "the built-in row is still listed"
    );
    let defaults: Vec<_> = listed(&root)
        .await
        .into_iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_owned(),
                c["isDefault"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(defaults, [("A".to_owned(), false), ("B".to_owned(), true)]);
    // The default has no "Make default" button; the other one has.
    let a_id = a["id"].as_str().unwrap();
    assert!(list.contains(&format!("/ai-configs/{a_id}/default")));
    assert!(!list.contains(&format!("/ai-configs/{b_id}/default")));

    // Unticked on the default's form, no stored model is the default: the built-in one is back.
    let (_, list) = submit(
        &root,
        &format!("/ai-configs/{b_id}"),
        &[
            ("name", "B"),
            ("endpoint", "https://b.example.com/v1"),
            ("model", "m"),
        ],
    )
    .await;
    assert!(list.contains("id=\"builtin-ai\""));
    assert!(listed(&root).await.iter().all(|c| c["isDefault"] == false));
}
