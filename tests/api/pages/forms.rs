//! Forms and searches: refused settings shown again, review dates and project searches.

use super::post_form;
use crate::helpers::{TestApp, json};
use reqwest::StatusCode;

#[tokio::test]
async fn refused_notification_settings_are_shown_again_as_typed() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let r = post_form(
        &app,
        &root,
        "/notifications",
        &[
            ("webhook_enabled", "on"),
            ("webhook_urls", "https://hooks.example.com/a\nnot a url"),
            ("smtp_host", "mail.example.com"),
            ("rating_threshold", "70"),
            ("notification_frequency", "immediate"),
        ],
    )
    .await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let page = r.text().await.unwrap();
    assert!(page.contains("role=\"alert\""), "no reason shown");
    assert!(
        page.contains("https://hooks.example.com/a") && page.contains("mail.example.com"),
        "the edits are lost"
    );
    // Nothing was stored.
    let stored = json(root.get("/api/notifications/config").await, StatusCode::OK).await;
    assert_eq!(
        stored["data"]["config"]["smtpHost"],
        serde_json::Value::Null
    );
}

#[tokio::test]
async fn the_reviews_page_takes_the_apis_dates_and_says_what_is_wrong_with_a_bad_one() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    for good in [
        "startDate=2026-01-01&endDate=2026-12-31",
        "startDate=2026-01-01T00:00:00Z",
    ] {
        let r = root.get(&format!("/reviews?{good}")).await;
        assert_eq!(r.status(), StatusCode::OK);
        assert!(
            !r.text().await.unwrap().contains("role=\"alert\""),
            "{good}"
        );
    }
    let r = root.get("/reviews?startDate=31.01.2026").await;
    assert_eq!(
        r.status(),
        StatusCode::OK,
        "a bad filter still shows the list"
    );
    let page = r.text().await.unwrap();
    assert!(
        page.contains("From must be a date"),
        "the problem is not named"
    );
}

#[tokio::test]
async fn the_reviews_page_searches_projects_by_name_with_wildcards_taken_literally() {
    let app = TestApp::spawn().await;
    app.sql(
        "INSERT INTO platform_configs (name, platform_type, base_url) VALUES ('G', 'hostA', 'https://gitlab.example.com')",
    );
    app.sql(
        "INSERT INTO projects (platform_config_id, platform_type, platform_project_id, name, full_path, web_url) \
         SELECT (SELECT id FROM platform_configs), 'hostA', n, n, 'g/' || n, 'https://gitlab.example.com/g/' || n \
         FROM unnest(ARRAY['billing_api', 'billingXapi', 'payments']) n",
    );
    app.sql(
        "INSERT INTO reviews (project_id, project_name, mr_iid, mr_title, mr_url, source_branch, target_branch, \
                              ai_provider, ai_model, triggered_by, head_commit_sha) \
         SELECT id, name, 1, 'Change of ' || name, 'https://x/1', 'a', 'main', 'p', 'm', 'auto', 'abc' FROM projects",
    );
    let root = app.root().await;
    let page = root
        .get("/reviews?project=BILLING_")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("Change of billing_api"),
        "no match for the name"
    );
    assert!(
        !page.contains("Change of billingXapi"),
        "`_` was a wildcard"
    );
    assert!(!page.contains("Change of payments"));
    // The filter is a search box, not a list of every project (thousands at scale).
    let all = root.get("/reviews").await.text().await.unwrap();
    assert!(all.contains("name=\"project\"") && !all.contains("<select id=\"projectId\""));
    assert!(all.contains("Change of payments"));
}

#[tokio::test]
async fn manual_review_finds_its_project_by_name_among_many() {
    let app = TestApp::spawn().await;
    app.sql(
        "INSERT INTO platform_configs (name, platform_type, base_url) VALUES ('G', 'hostA', 'https://gitlab.example.com')",
    );
    app.sql(
        "INSERT INTO projects (platform_config_id, platform_type, platform_project_id, name, full_path, web_url, enabled) \
         SELECT (SELECT id FROM platform_configs), 'hostA', g::text, 'svc-' || g, 'group/svc-' || g, 'https://x/' || g, g <> 7 \
         FROM generate_series(1, 40) g",
    );
    let root = app.root().await;
    let first = root.get("/manual").await.text().await.unwrap();
    assert_eq!(
        first.matches("data-project=").count(),
        25,
        "a page of projects, not all"
    );
    assert!(
        first.contains("25 of 39 projects shown"),
        "the others are not announced"
    );
    let found = root
        .get("/manual?project=svc-3")
        .await
        .text()
        .await
        .unwrap();
    // svc-3 and svc-30..svc-39.
    assert_eq!(found.matches("data-project=").count(), 11);
    let disabled = root
        .get("/manual?project=svc-7")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        !disabled.contains("data-project=\"group/svc-7\""),
        "a disabled project is offered"
    );
    let none = root
        .get("/manual?project=nothing-like-it")
        .await
        .text()
        .await
        .unwrap();
    assert!(none.contains("No enabled project matches"));
}
