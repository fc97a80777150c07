//! The merge gate end to end: on the fake GitLab a `reviewd` commit status, on
//! the fake GitHub (a token) a commit status, each going pending or running then
//! failed while the review's error stands, linked to the review's page (which
//! shows the gate too); the project's gate settings through the API.

use super::feedback::{deliver_a, deliver_b, opened_pr};
use super::{
    APP_DIFF_1, HEAD_1, app_with_ai, fake_ai, push, review_answer, sync_projects, wait_for,
};
use crate::helpers::{TestApp, create_github_config, create_gitlab_config, json};
use reqwest::StatusCode;
use reviewd_testkit::contract::hosting::FakeServer;
use reviewd_testkit::fakes::hosting::{MrFixture, ProjectFixture};
use reviewd_testkit::{FakeGithub, FakeGitlab};
use serde_json::{Value, json};
use std::time::Duration;

/// Polls `gates` until the last one says `done` (the webhook's `pending` is
/// posted off the request's path and may come at any point before it).
async fn settled(gates: impl Fn() -> Vec<Value>, field: &str, done: &str) -> Vec<Value> {
    for _ in 0..100 {
        let all = gates();
        if all.last().is_some_and(|g| g[field] == done) {
            return all;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the gate never said {done}: {:?}", gates());
}

fn states(gates: &[Value], field: &str) -> Vec<String> {
    gates
        .iter()
        .map(|g| g[field].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The review's page on the dashboard.
async fn page_of(root: &crate::helpers::Session, review: &str) -> String {
    root.get(&format!("/reviews/{review}"))
        .await
        .text()
        .await
        .unwrap()
}

async fn review_id(app: &TestApp, delivered: &Value) -> String {
    let task = wait_for(app, delivered["taskId"].as_str().unwrap()).await;
    assert_eq!(task["status"], "completed", "{task}");
    task["reviewId"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn gitlab_shows_a_reviewd_status_that_fails_while_the_error_stands() {
    let gitlab = FakeGitlab::start("glpat-gate").await;
    let project = gitlab
        .add_project(
            &ProjectFixture::new("group/gate").mr(MrFixture::new(1)
                .head(HEAD_1)
                .file("src/app.rs", APP_DIFF_1)),
        )
        .await;
    let ai = fake_ai(review_answer).await;
    let app = app_with_ai(&ai, &[]).await;
    let config = create_gitlab_config(&app, &gitlab).await;
    sync_projects(&app, &config).await;

    let hook = deliver_a(&app, "Merge Request Hook", &push(&project.id, 1, HEAD_1)).await;
    let review = review_id(&app, &hook).await;
    let gates = settled(|| gitlab.statuses(HEAD_1), "state", "failed").await;
    let seen = states(&gates, "state");
    assert!(seen.contains(&"running".to_owned()), "{seen:?}");
    assert!(
        seen.iter()
            .all(|s| ["pending", "running", "failed"].contains(&s.as_str())),
        "never green on the way: {seen:?}"
    );
    let last = gates.last().unwrap();
    assert!(gates.iter().all(|g| g["name"] == "reviewd"), "{gates:?}");
    assert!(
        last["description"]
            .as_str()
            .unwrap()
            .starts_with("1 error is open"),
        "{last}"
    );
    assert_eq!(
        last["target_url"],
        format!("http://reviewd.test/reviews/{review}")
    );

    // The review's page says where the gate stands, in the same words.
    let root = app.root().await;
    let shown = page_of(&root, &review).await;
    assert!(
        shown.contains("id=\"merge-gate\"")
            && shown.contains("<span class=\"badge failed\">failed</span>")
            && shown.contains("1 error is open"),
        "{shown}"
    );

    // The project's policy through the API: a grade bar, then the gate off.
    let id = app.sql("SELECT id FROM projects LIMIT 1");
    let refused = root
        .patch(
            &format!("/api/projects/{id}"),
            json!({ "gateMinRating": "E" }),
        )
        .await;
    let body = json(refused, StatusCode::BAD_REQUEST).await;
    assert!(body.to_string().contains("gateMinRating"), "{body}");
    let saved = json(
        root.patch(
            &format!("/api/projects/{id}"),
            json!({ "gateMinRating": "B", "gateEnabled": false }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let project_view = &saved["data"]["project"];
    assert_eq!(
        (
            project_view["gateMinRating"].clone(),
            project_view["gateEnabled"].clone()
        ),
        (json!("B"), json!(false))
    );
    let resolved = json(
        root.get(&format!("/api/projects/{id}/config")).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        resolved["data"]["config"]["gateEnabled"], false,
        "{resolved}"
    );
    let before = gitlab.statuses(HEAD_1).len();
    let again = json(
        root.post(
            "/api/reviews/trigger-manual-review",
            json!({ "projectId": id, "mrIid": 1 }),
        )
        .await,
        StatusCode::ACCEPTED,
    )
    .await;
    wait_for(&app, again["data"]["task"]["id"].as_str().unwrap()).await;
    assert_eq!(
        gitlab.statuses(HEAD_1).len(),
        before,
        "no status once the gate is off"
    );
    assert!(
        !page_of(&root, &review).await.contains("merge-gate"),
        "nor a gate on the page"
    );
}

#[tokio::test]
async fn github_with_a_token_shows_a_reviewd_commit_status() {
    let github = FakeGithub::start("ghp_gate").await;
    let repo = github
        .add_project(
            &ProjectFixture::new("octo/gate").mr(MrFixture::new(2)
                .head(HEAD_1)
                .file("src/app.rs", APP_DIFF_1)),
        )
        .await;
    let ai = fake_ai(review_answer).await;
    let app = app_with_ai(&ai, &[]).await;
    let config = create_github_config(&app, &github).await;
    sync_projects(&app, &config).await;

    let hook = deliver_b(&app, "pull_request", &opened_pr(&repo, HEAD_1)).await;
    let review = review_id(&app, &hook).await;
    let gates = settled(|| github.gates(HEAD_1), "state", "failure").await;
    let seen = states(&gates, "state");
    assert!(
        seen.iter()
            .all(|s| ["pending", "failure"].contains(&s.as_str())),
        "{seen:?}"
    );
    assert!(
        seen.contains(&"pending".to_owned()),
        "running is pending on GitHub: {seen:?}"
    );
    let last = gates.last().unwrap();
    assert_eq!(last["context"], "reviewd");
    assert_eq!(
        last["target_url"],
        format!("http://reviewd.test/reviews/{review}")
    );
    assert!(last["description"].as_str().unwrap().chars().count() <= 140);
}
