//! A GitHub App config end to end, on the fake GitHub in App mode (JWTs checked
//! with the App's public key, installation tokens that expire): its key is
//! checked and never shown, sync lists every live installation's repositories, a
//! pull request is reviewed through an installation token, installation webhooks
//! keep the project list current, and a runner gets a token of its own.

use super::feedback;
use super::{APP_DIFF_1, app_with_ai, fake_ai, review_answer, send_pull_request, wait_for};
use crate::helpers::{TestApp, expect_error, json};
use crate::runners::{api_key, register};
use reqwest::StatusCode;
use reviewd_testkit::FakeGithub;
use reviewd_testkit::contract::hosting::FakeServer;
use reviewd_testkit::fakes::hosting::{MrFixture, Posted, ProjectFixture};
use serde_json::{Value, json};
use std::time::Duration;

const HEAD: &str = "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1";
const APP_ID: u64 = 4242;

/// The fake GitHub with the App installed on `octo` (two repositories, one with
/// pull request 2) and, suspended, on `other`.
async fn github() -> (FakeGithub, reviewd_domain::ports::ProjectRef, String) {
    let github = FakeGithub::start("ghp_not_used_by_the_app").await;
    github.app(APP_ID, FakeGithub::APP_PUBLIC_KEY).await;
    let one = github
        .add_project(
            &ProjectFixture::new("octo/app-one")
                .mr(MrFixture::new(2).head(HEAD).file("src/app.rs", APP_DIFF_1)),
        )
        .await;
    let two = github
        .add_project(&ProjectFixture::new("octo/app-two"))
        .await;
    github
        .add_project(&ProjectFixture::new("other/app-three"))
        .await;
    github.with_installation(11, "octo", &[], false);
    github.with_installation(12, "other", &[], true);
    (github, one, two.id)
}

fn app_config(github: &FakeGithub, key: &str) -> Value {
    json!({ "name": "GitHub App", "platformType": "hostB", "baseUrl": github.base_url(),
            "authType": "app", "appId": APP_ID.to_string(), "privateKey": key,
            "webhookSecret": "hook-secret-b" })
}

async fn create(app: &TestApp, github: &FakeGithub) -> String {
    let root = app.root().await;
    // A key GitHub does not know for this App, or something that is no key: 400,
    // nothing stored.
    for bad in [FakeGithub::OTHER_PRIVATE_KEY, "ghp_this_is_a_token"] {
        expect_error(
            root.post("/api/platform-configs", app_config(github, bad))
                .await,
            StatusCode::BAD_REQUEST,
            "VALIDATION_FAILED",
        )
        .await;
    }
    let mut no_installation = app_config(github, FakeGithub::APP_PRIVATE_KEY);
    no_installation["installationId"] = json!(0);
    expect_error(
        root.post("/api/platform-configs", no_installation.clone())
            .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    let test_body = json!({ "platformType": "hostB", "baseUrl": github.base_url(), "authType": "app",
                            "appId": APP_ID.to_string(), "privateKey": FakeGithub::APP_PRIVATE_KEY,
                            "installationId": 0 });
    expect_error(
        root.post("/api/platform-configs/test-connection", test_body)
            .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    let created = root
        .post(
            "/api/platform-configs",
            app_config(github, FakeGithub::APP_PRIVATE_KEY),
        )
        .await;
    let text = created.text().await.unwrap();
    assert!(!text.contains("PRIVATE KEY"), "the key is never returned");
    let body: Value = serde_json::from_str(&text).unwrap();
    let config = &body["data"]["config"];
    assert_eq!(config["authType"], "app", "{body}");
    assert_eq!(config["privateKey"], "***");
    assert_eq!(config["accessToken"], Value::Null);
    let listed = json(root.get("/api/platform-configs").await, StatusCode::OK).await;
    assert!(!listed.to_string().contains("PRIVATE KEY"));
    config["id"].as_str().unwrap().to_owned()
}

/// The projects as (full path, enabled), sorted.
async fn projects(app: &TestApp) -> Vec<(String, bool)> {
    let listed = json(app.root().await.get("/api/projects").await, StatusCode::OK).await;
    let mut all: Vec<_> = listed["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["fullPath"].as_str().unwrap().to_owned(),
                p["enabled"].as_bool().unwrap(),
            )
        })
        .collect();
    all.sort();
    all
}

async fn until_projects(app: &TestApp, want: &[(&str, bool)]) -> Vec<(String, bool)> {
    let want: Vec<(String, bool)> = want.iter().map(|(p, e)| ((*p).to_owned(), *e)).collect();
    let mut got = Vec::new();
    for _ in 0..100 {
        got = projects(app).await;
        if got == want {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    got
}

#[tokio::test]
async fn a_github_app_config_syncs_its_installations_and_reviews_a_pull_request() {
    let (github, one, two_id) = github().await;
    let ai = fake_ai(review_answer).await;
    let app = app_with_ai(&ai, &feedback::pass_every_second()).await;
    let config = create(&app, &github).await;
    super::sync_projects(&app, &config).await;
    assert_eq!(
        projects(&app).await,
        [
            ("octo/app-one".to_owned(), true),
            ("octo/app-two".to_owned(), true)
        ],
        "the suspended installation's repository is left out"
    );

    let task = wait_for(&app, &send_pull_request(&app, Some(&one), Some(HEAD)).await).await;
    assert_eq!(task["status"], "completed", "{task}");
    let inline = github
        .posted(&one, 2)
        .into_iter()
        .filter(|p| matches!(p, Posted::Inline { .. }))
        .count();
    assert_eq!(inline, 2, "the review's line comments, through the App");
    let mints = github.mints();
    assert!(!mints.is_empty());
    assert!(
        mints.iter().all(|m| m.installation_id == 11),
        "only the installation of the repository: {mints:?}"
    );
    assert!(
        mints.len() <= 2,
        "one cached installation token, not one per call: {} mints",
        mints.len()
    );

    // Readers' feedback, through the App's installation token: a 👍 (read by the
    // pass), a resolved thread (its hook), and a pushed fix.
    let review = task["reviewId"].as_str().unwrap().to_owned();
    let (unwrap_comment, unwrap_body) = github
        .review_comments(&one.full_path, 2)
        .into_iter()
        .find(|(_, body)| body.contains("unwrap() panics"))
        .unwrap();
    github
        .react_as(&one.full_path, unwrap_comment, "+1", "ana")
        .unwrap();
    assert!(github.resolve_as(&one.full_path, unwrap_comment, Some("cy")));
    let mut resolved = feedback::fixture("hostB", "pull_request_review_thread.resolved.json");
    resolved["repository"]["id"] = json!(one.id.parse::<u64>().unwrap());
    resolved["pull_request"]["number"] = json!(2);
    resolved["sender"]["login"] = json!("cy");
    for comment in resolved["thread"]["comments"].as_array_mut().unwrap() {
        if comment["in_reply_to_id"].is_null() {
            comment["body"] = json!(unwrap_body);
        }
    }
    let answer = feedback::deliver_b(&app, "pull_request_review_thread", &resolved).await;
    assert_eq!(answer["status"], "ignored", "{answer}");
    assert_eq!(
        feedback::eventually(
            &app,
            &review,
            &[("accepted", Some("ana")), ("accepted", Some("cy"))]
        )
        .await,
        [
            feedback::pair("accepted", Some("ana")),
            feedback::pair("accepted", Some("cy"))
        ]
    );
    let head_2 = "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2";
    github
        .add_compare(&one, HEAD, head_2, &feedback::fix())
        .await;
    feedback::mount_github_head(&github, &one.full_path, head_2, feedback::DIFF_2).await;
    let task = wait_for(
        &app,
        &send_pull_request(&app, Some(&one), Some(head_2)).await,
    )
    .await;
    assert_eq!(task["status"], "completed", "{task}");
    assert!(
        feedback::feedback(&app, &review)
            .await
            .contains(&feedback::pair("implemented", None))
    );

    // The repository is removed from the installation: its project is disabled;
    // added back, enabled again (with its history).
    let mut removed = feedback::fixture("hostB", "installation_repositories.removed.json");
    removed["installation"]["id"] = json!(11);
    removed["repositories_removed"] = json!([{ "id": two_id.parse::<u64>().unwrap(),
        "node_id": "R_x", "name": "app-two", "full_name": "octo/app-two", "private": true }]);
    let answer = feedback::deliver_b(&app, "installation_repositories", &removed).await;
    assert_eq!(answer["status"], "ignored", "{answer}");
    assert_eq!(
        until_projects(&app, &[("octo/app-one", true), ("octo/app-two", false)]).await,
        [
            ("octo/app-one".to_owned(), true),
            ("octo/app-two".to_owned(), false)
        ]
    );
    let mut added = removed.clone();
    added["action"] = json!("added");
    added["repositories_added"] = removed["repositories_removed"].clone();
    added["repositories_removed"] = json!([]);
    feedback::deliver_b(&app, "installation_repositories", &added).await;
    assert_eq!(
        until_projects(&app, &[("octo/app-one", true), ("octo/app-two", true)]).await,
        [
            ("octo/app-one".to_owned(), true),
            ("octo/app-two".to_owned(), true)
        ]
    );
}

#[tokio::test]
async fn a_runner_gets_a_read_only_token_for_its_repository_alone() {
    let (github, one, _) = github().await;
    // No server workers: the task waits for a runner.
    let app =
        TestApp::spawn_with(&[("PROVIDERA_ENDPOINT", "http://ai.invalid/v1".to_owned())]).await;
    let config = create(&app, &github).await;
    super::sync_projects(&app, &config).await;
    let task_id = send_pull_request(&app, Some(&one), Some(HEAD)).await;
    let key = api_key(&app).await;
    register(&app, &key, "r1", 1, "linux").await;
    let claimed = json(
        app.with_api_key(&key)
            .get("/api/runners/tasks/pending?runnerId=r1")
            .await,
        StatusCode::OK,
    )
    .await;
    let task = &claimed["data"][0];
    assert_eq!(task["id"], task_id.as_str(), "{claimed}");
    assert_eq!(task["cloneCredentials"]["username"], "x-access-token");
    let token = task["cloneCredentials"]["password"].as_str().unwrap();
    let mints = github.mints();
    let minted = mints.iter().find(|m| m.token == token).unwrap();
    assert_eq!(
        minted.repositories.as_deref(),
        Some(&["octo/app-one".to_owned()][..]),
        "narrowed to the task's repository"
    );
    // GitHub adds `metadata: read` to every token; nothing may write.
    assert_eq!(minted.permissions["contents"], "read");
    assert!(
        minted
            .permissions
            .as_object()
            .unwrap()
            .values()
            .all(|level| level == "read"),
        "{}",
        minted.permissions
    );
    assert!(
        mints
            .iter()
            .any(|m| m.token != token && m.installation_id == 11),
        "the server's own installation token is another one"
    );
}
