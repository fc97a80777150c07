//! Prompt templates and review rules: applied to the prompt and recorded, admin-only and validated.

use super::{
    APP_DIFF_1, HEAD_1, app_with_ai, fake_ai, file, fixture, mount_mr, mount_posting,
    review_answer, send_webhook, setup_project, wait_for,
};
use crate::helpers::{TestApp, json};
use reqwest::StatusCode;
use reviewd_testkit::FakeGitlab;
use serde_json::{Value, json};

#[tokio::test]
async fn templates_frame_the_prompt_and_matching_rules_are_applied_and_recorded() {
    let gitlab = FakeGitlab::start("glpat-pipeline").await;
    gitlab.with_projects(1, "svc").await;
    mount_posting(&gitlab).await;
    mount_mr(
        &gitlab,
        HEAD_1,
        json!([
            file("src/app.rs", APP_DIFF_1),
            file("web/app.ts", "@@ -1 +1,2 @@\n a\n+b\n")
        ]),
        5,
    )
    .await;
    let ai = fake_ai(review_answer).await;
    let app = app_with_ai(&ai, &[]).await;
    setup_project(&app, &gitlab).await;
    let root = app.root().await;
    json(root.post("/api/reviews/templates", json!({ "name": "Security first", "content": "You audit code for security flaws.", "isDefault": true })).await, StatusCode::OK).await;
    let rule = json(
        root.post("/api/reviews/rules", json!({ "ruleName": "Rust errors", "instructions": "Never unwrap in library code.", "fileTypePatterns": ["rs"], "priority": 10 })).await,
        StatusCode::OK,
    )
    .await["data"]["rule"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    json(
        root.post(
            "/api/reviews/rules",
            json!({ "ruleName": "Disabled", "instructions": "Ignore me.", "enabled": false }),
        )
        .await,
        StatusCode::OK,
    )
    .await;

    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    assert_eq!(task["status"], "completed", "{task}");
    // (the request, its user part), the summary call left out.
    let prompts: Vec<(Value, String)> = ai
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| !reviewd_testkit::is_summary_call(r))
        .map(|r| {
            (
                serde_json::from_slice(&r.body).unwrap(),
                reviewd_testkit::prompt_of(r),
            )
        })
        .collect();
    assert_eq!(prompts.len(), 2);
    for (p, user) in &prompts {
        assert!(
            p["messages"][0]["content"]
                .as_str()
                .unwrap()
                .starts_with("You audit code for security flaws.")
        );
        assert!(!user.contains("Ignore me."));
    }
    let rust = &prompts
        .iter()
        .find(|(_, user)| user.contains("File under review: src/app.rs"))
        .unwrap()
        .1;
    let ts = &prompts
        .iter()
        .find(|(_, user)| user.contains("File under review: web/app.ts"))
        .unwrap()
        .1;
    assert!(rust.contains("- Rust errors: Never unwrap in library code."));
    assert!(
        !ts.contains("Rust errors"),
        "the rule targets .rs files only"
    );
    let review = json(
        root.get(&format!(
            "/api/reviews/{}",
            task["reviewId"].as_str().unwrap()
        ))
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(review["data"]["review"]["appliedRuleIds"], json!([rule]));

    let listed = json(root.get("/api/reviews/rules/all").await, StatusCode::OK).await;
    assert_eq!(
        listed["data"]["rules"][0]["ruleName"], "Rust errors",
        "highest priority first"
    );
    let templates = json(root.get("/api/reviews/templates/all").await, StatusCode::OK).await;
    assert_eq!(templates["data"]["templates"][0]["isDefault"], true);
}

#[tokio::test]
async fn templates_and_rules_are_admin_only_and_validated() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let maintainer = app.user_with_role("maintainer").await;
    crate::helpers::expect_error(
        maintainer
            .post(
                "/api/reviews/rules",
                json!({ "ruleName": "x", "instructions": "y" }),
            )
            .await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    let bad = crate::helpers::expect_error(
        root.post(
            "/api/reviews/rules",
            json!({ "ruleName": "", "instructions": "y", "filePathPatterns": ["src/[[bad"] }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert!(
        bad["error"]["details"]["fields"]["ruleName"].is_array()
            && bad["error"]["details"]["fields"]["filePathPatterns"].is_array()
    );
    crate::helpers::expect_error(
        root.post("/api/reviews/templates", json!({ "name": "t" }))
            .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    let first = json(
        root.post(
            "/api/reviews/templates",
            json!({ "name": "A", "content": "a", "isDefault": true }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    json(
        root.post(
            "/api/reviews/templates",
            json!({ "name": "B", "content": "b", "isDefault": true }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let listed = json(root.get("/api/reviews/templates/all").await, StatusCode::OK).await;
    let defaults: Vec<_> = listed["data"]["templates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["isDefault"] == true)
        .map(|t| t["name"].clone())
        .collect();
    assert_eq!(defaults, vec![json!("B")], "one global default");
    let id = first["data"]["template"]["id"].as_str().unwrap();
    let renamed = json(
        root.patch(
            &format!("/api/reviews/templates/{id}"),
            json!({ "name": "A2" }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(renamed["data"]["template"]["name"], "A2");
    crate::helpers::expect_error(
        root.patch(
            &format!("/api/reviews/rules/{}", uuid::Uuid::new_v4()),
            json!({ "priority": 1 }),
        )
        .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
}
