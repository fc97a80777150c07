//! Defaults, references to templates and rules, and flags that take one spelling.

use super::*;

#[tokio::test]
async fn an_explicit_is_default_false_is_honoured_on_a_platforms_first_config() {
    let app = TestApp::spawn().await;
    let gitlab = reviewd_testkit::FakeGitlab::start("glpat-default").await;
    let root = app.root().await;
    let create = |name: &str, is_default: Option<bool>| {
        let mut body = json!({ "name": name, "platformType": "hostA", "baseUrl": gitlab.base_url(),
                               "accessToken": gitlab.token });
        if let Some(d) = is_default {
            body["isDefault"] = json!(d);
        }
        root.post("/api/platform-configs", body)
    };
    let staging = json(create("Staging", Some(false)).await, StatusCode::OK).await;
    assert_eq!(staging["data"]["config"]["isDefault"], false);
    assert_eq!(
        app.sql("SELECT count(*) FROM platform_configs WHERE is_default"),
        "0"
    );
    // Told nothing, a later one is not the default either; told so, it is.
    let later = json(create("Later", None).await, StatusCode::OK).await;
    assert_eq!(later["data"]["config"]["isDefault"], false);
    let prod = json(create("Prod", Some(true)).await, StatusCode::OK).await;
    assert_eq!(prod["data"]["config"]["isDefault"], true);
}

#[tokio::test]
async fn a_manual_review_with_an_unknown_template_is_a_404_naming_the_template() {
    let gitlab = crate::review_pipeline::gitlab_with_one_mr().await;
    let app = TestApp::spawn().await;
    crate::review_pipeline::setup_project(&app, &gitlab).await;
    let project = app.sql("SELECT id FROM projects LIMIT 1");
    let root = app.root().await;
    let body = expect_error(
        root.post(
            "/api/reviews/trigger-manual-review",
            json!({ "projectId": project, "mrIid": 1, "templateId": uuid::Uuid::new_v4() }),
        )
        .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    assert_eq!(body["error"]["message"], "template not found");
    assert_eq!(app.sql("SELECT count(*) FROM review_tasks"), "0");
}

#[tokio::test]
async fn a_template_update_against_the_global_default_rule_is_a_409_not_a_500() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let created = json(
        root.post(
            "/api/reviews/templates",
            json!({ "name": "house style", "content": "Review for our house style.", "isDefault": true }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let default = created["data"]["template"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.sql(
        "INSERT INTO platform_configs (name, platform_type, base_url) VALUES ('G', 'hostA', 'https://gitlab.example.com')",
    );
    let project = app.sql(
        "INSERT INTO projects (platform_config_id, platform_type, platform_project_id, name, full_path, web_url) \
         SELECT id, 'hostA', 1, 'p', 'g/p', 'https://gitlab.example.com/g/p' FROM platform_configs RETURNING id",
    );
    let body = expect_error(
        root.patch(
            &format!("/api/reviews/templates/{default}"),
            json!({ "projectId": project.trim() }),
        )
        .await,
        StatusCode::CONFLICT,
        "CONFLICT",
    )
    .await;
    assert!(body.to_string().contains("global"), "{body}");
}

#[tokio::test]
async fn force_is_true_or_false_and_nothing_else() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let id = app.sql(
        "INSERT INTO platform_configs (name, platform_type, base_url) VALUES ('G', 'hostA', 'https://gitlab.example.com') RETURNING id",
    );
    let body = expect_error(
        root.delete(&format!(
            "/api/platform-configs/{}?force=-2e-229",
            id.trim()
        ))
        .await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUERY",
    )
    .await;
    assert_eq!(fields(&body), ["force"]);
    json(
        root.delete(&format!("/api/platform-configs/{}?force=false", id.trim()))
            .await,
        StatusCode::OK,
    )
    .await;
}
