//! A running review's page updates itself; the dashboard reads well on a phone in the
//! dark.

use super::browser::Browser;
use super::flows::log_in;
use crate::helpers::{ROOT_EMAIL, ROOT_PASSWORD, json};
use crate::review_pipeline::{APP_DIFF_1, HEAD_1, file, mount_mr, mount_posting, review_answer};
use reqwest::StatusCode;
use reviewd_testkit::FakeGitlab;
use serde_json::{Value, json};
use std::time::Duration;
use wiremock::MockServer;

/// An AI that takes `delay` to answer each file.
async fn slow_ai(delay: Duration) -> MockServer {
    reviewd_testkit::fake_openai(delay, review_answer).await
}

#[tokio::test]
async fn a_running_review_shows_its_progress_live_and_finishes_without_a_reload() {
    let gitlab = FakeGitlab::start("glpat-live").await;
    gitlab.with_projects(1, "svc").await;
    mount_posting(&gitlab).await;
    let files = json!([
        file("src/app.rs", APP_DIFF_1),
        file("src/b.rs", APP_DIFF_1),
        file("src/c.rs", APP_DIFF_1)
    ]);
    mount_mr(&gitlab, HEAD_1, files, 5).await;
    let ai = slow_ai(Duration::from_secs(3)).await;
    let app =
        crate::review_pipeline::app_with_ai(&ai, &[("AI_REVIEW_CONCURRENCY", "1".to_owned())])
            .await;
    crate::review_pipeline::setup_project(&app, &gitlab).await;
    let project = app.sql("SELECT id FROM projects LIMIT 1");
    // A phone in dark mode, signed in before the review starts.
    let browser = Browser::start_with(&app.base_url, (390, 844), true).await;
    log_in(&browser, ROOT_EMAIL, ROOT_PASSWORD).await;
    let root = app.root().await;
    let task = json(
        root.post(
            "/api/reviews/trigger-manual-review",
            json!({ "projectId": project, "mrIid": 1 }),
        )
        .await,
        StatusCode::ACCEPTED,
    )
    .await["data"]["task"]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    browser.goto(&format!("/manual/tasks/{task}")).await;
    // The task page hands over to the review's page as soon as the review exists, which
    // shows the files' progress while they are reviewed one by one.
    browser.wait_text(".progress-label", "of 3 files", 20).await;
    assert_eq!(browser.text("#review-status").await, "pending");
    browser.screenshot("review-running-phone-dark").await;
    // Nothing wider than the phone: wide tables scroll inside their panel.
    let fits = browser
        .eval("return document.documentElement.scrollWidth <= window.innerWidth + 1;")
        .await;
    assert_eq!(fits, Value::Bool(true), "the page is wider than the phone");
    let background = browser
        .eval("return getComputedStyle(document.body).backgroundColor;")
        .await;
    assert_eq!(background, json!("rgb(15, 18, 24)"), "not the dark theme");
    // The page reloads itself when the review ends.
    browser.wait_text("#review-status", "completed", 40).await;
    let files = browser.text("#files").await;
    assert_eq!(files.matches("completed").count(), 3, "{files}");
    assert!(!browser.exists(".progress-label").await);
    browser.screenshot("review-phone-dark").await;
    browser.close().await;
}
