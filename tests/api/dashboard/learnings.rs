//! A project's learnings in the browser: added, rewritten and deleted through the
//! page's forms, a hostile lesson shown as text, a viewer shown no form.

use super::browser::Browser;
use super::flows::log_in;
use crate::helpers::{ROOT_EMAIL, ROOT_PASSWORD, TestApp, create_gitlab_config, json};
use reqwest::StatusCode;
use reviewd_testkit::FakeGitlab;
use serde_json::json;

#[tokio::test]
async fn learnings_are_taught_rewritten_and_forgotten_in_the_dashboard() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start("glpat-learnings").await;
    gitlab.with_projects(1, "lessons").await;
    let root = app.root().await;
    let config = create_gitlab_config(&app, &gitlab).await;
    root.post(
        "/api/projects/sync/platform",
        json!({ "platformConfigId": config }),
    )
    .await;
    let project =
        json(root.get("/api/projects").await, StatusCode::OK).await["data"]["items"][0]["id"]
            .as_str()
            .unwrap()
            .to_owned();
    // One taught in a merge request (as `/reviewd remember` stores it).
    app.sql(&format!(
        "INSERT INTO learnings (project_id, text, source, author, mr_iid) VALUES ('{project}', 'Errors are logged once, where they are handled.', 'command', 'ana', 12)"
    ));

    let browser = Browser::start(&app.base_url).await;
    log_in(&browser, ROOT_EMAIL, ROOT_PASSWORD).await;
    browser.goto(&format!("/projects/{project}")).await;
    browser
        .click(&format!("a[href='/projects/{project}/learnings']"))
        .await;
    let table = browser.text("#learnings table").await;
    assert!(table.contains("command · ana · !12"), "{table}");

    let hostile = "<img src=x onerror=alert(1)> Ids are checked in the router.";
    browser.fill("#l-text", hostile).await;
    browser.click_text("#learnings", "Add learning").await;
    browser.wait_text(".flash", "Learning added.", 10).await;
    let rows = browser
        .eval("return document.querySelectorAll('#learnings table textarea[name=text]').length")
        .await;
    assert_eq!(rows, json!(2));
    let shown = browser
        .eval("return document.querySelectorAll('#learnings table textarea[name=text]')[1].value")
        .await;
    assert_eq!(shown, json!(hostile), "shown as the text it is");
    assert!(
        !browser.exists("#learnings img").await,
        "no markup from a lesson"
    );
    browser.screenshot("learnings").await;

    // Rewrite the first, delete the second.
    browser
        .eval("const t = document.querySelectorAll('#learnings table textarea[name=text]')[0]; t.value = 'Errors are logged once.'; t.form.submit(); return null")
        .await;
    browser.wait_text(".flash", "Learning saved.", 10).await;
    browser
        .eval("document.querySelectorAll('#learnings table form button')[3].click(); return null")
        .await;
    browser.wait_text(".flash", "Learning deleted.", 10).await;
    let listed = json(
        root.get(&format!("/api/projects/{project}/learnings"))
            .await,
        StatusCode::OK,
    )
    .await;
    let texts: Vec<&str> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["text"].as_str())
        .collect();
    assert_eq!(texts, ["Errors are logged once."]);
    browser.assert_no_console_errors().await;
    browser.close().await;
}
