//! Every command, said in a merge request on the fake GitLab and on the fake
//! GitHub, does what it says and shows in the API: help (and an unknown word),
//! ask, describe (the author's text kept), remember (a learning), pause, resume,
//! review, review full (a round that is not differential), ignore (and a review
//! asked afterwards refused).

use super::github_commands::pr_comment;
use super::*;
use crate::helpers::{TestApp, create_github_config, create_gitlab_config, json};
use crate::review_pipeline::feedback::deliver_b;
use crate::review_pipeline::{app_with_ai, fake_ai};
use reqwest::StatusCode;
use reviewd_testkit::contract::hosting::FakeServer;
use reviewd_testkit::fakes::hosting::{MrFixture, ProjectFixture};
use reviewd_testkit::{FakeGithub, FakeGitlab};
use serde_json::Value;
use std::time::Duration;

const AUTHORS_TEXT: &str = "Keeps the author's words.";
const LESSON: &str = "Errors are logged once, where they are handled.";

/// Each command and the start of what reviewd posts for it, in the order they are said.
const EVERY_COMMAND: [(&str, &str); 11] = [
    ("/reviewd help", "reviewd answers to `/reviewd <command>`"),
    ("/reviewd dance", "I don't know `dance`."),
    (
        "/reviewd ask what does this change do?",
        "It panics when foo() fails.",
    ),
    (
        "/reviewd describe",
        "The description's summary and walkthrough are written",
    ),
    (
        "/reviewd remember Errors are logged once, where they are handled.",
        "Noted for this project's reviews:",
    ),
    (
        "/reviewd pause",
        "Automatic reviews of this merge request are paused.",
    ),
    (
        "/reviewd resume",
        "Automatic reviews of this merge request are on again.",
    ),
    // The contract's `/review` in reviewd's words: queued at once by the webhook,
    // answered by the review itself.
    ("/reviewd review", "### reviewd: rating"),
    (
        "/reviewd review full",
        "A full review of this merge request (every file again) is queued.",
    ),
    (
        "/reviewd ignore",
        "reviewd will not review this merge request again.",
    ),
    ("/reviewd review", "This merge request is ignored"),
];

/// Waits until no review task is waiting or running.
async fn reviews_settled(app: &TestApp) {
    for _ in 0..300 {
        let active = app.sql(
            "SELECT count(*) FROM review_tasks WHERE conversation_id IS NULL \
             AND status IN ('pending', 'queued', 'processing', 'in_progress')",
        );
        if active == "0" {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("a review task did not finish");
}

/// What the API shows after every command was said on MR `iid`; `said` is what
/// reviewd posted, in order, and `description` the description it wrote.
async fn check(app: &TestApp, iid: i64, said: &[String], description: &str) {
    let answers: Vec<&String> = said
        .iter()
        .filter(|b| b.contains("reviewd:answer") || b.contains("reviewd:summary"))
        .collect();
    assert_eq!(answers.len(), EVERY_COMMAND.len(), "{said:?}");
    for ((command, expected), answer) in EVERY_COMMAND.iter().zip(&answers) {
        assert!(answer.starts_with(expected), "{command}: {answer}");
    }
    assert!(
        description.starts_with(AUTHORS_TEXT)
            && description.contains("It panics when foo() fails."),
        "{description}"
    );
    let (talk, statuses) = talk_of(app, iid).await;
    // Every command but the `review` the webhook queued itself.
    assert_eq!(statuses, ["answered"; 10], "{talk}");
    assert_eq!(talk["data"]["controls"]["ignored"], true, "{talk}");
    assert_eq!(talk["data"]["controls"]["paused"], false, "{talk}");
    let project = project_id(app).await;
    let learnings = json(
        app.root()
            .await
            .get(&format!("/api/projects/{project}/learnings"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(learnings["data"][0]["text"], LESSON, "{learnings}");
    // `review` and `review full`: two rounds, the second over every file.
    let rounds = app.sql(
        "SELECT string_agg(is_differential::text, ',' ORDER BY round_number) FROM review_rounds",
    );
    assert_eq!(rounds, "false,false");
}

#[tokio::test]
async fn gitlab_every_command_does_what_it_says() {
    let gitlab = FakeGitlab::start("glpat-every").await;
    let project = gitlab
        .add_project(
            &ProjectFixture::new("group/every")
                .member(4101, "ana")
                .mr(MrFixture::new(1)
                    .head(HEAD)
                    .description(AUTHORS_TEXT)
                    .file("src/app.rs", DIFF)),
        )
        .await;
    let ai = fake_ai(answer).await;
    let app = app_with_ai(&ai, &[]).await;
    let config = create_gitlab_config(&app, &gitlab).await;
    crate::review_pipeline::sync_projects(&app, &config).await;
    for (n, (command, _)) in (0u64..).zip(EVERY_COMMAND) {
        let hook = note_hook(&project.id, 990_000 + n, None, (4101, "ana"), command);
        answered(&app, &deliver_a(&app, "Note Hook", &hook).await).await;
        reviews_settled(&app).await;
    }
    let notes = format!("/api/v4/projects/{}/merge_requests/1/notes", project.id);
    let said: Vec<String> = gitlab_requests(&gitlab, "POST", &notes)
        .await
        .iter()
        .filter_map(|n| n["body"].as_str().map(str::to_owned))
        .collect();
    let mr = format!("/api/v4/projects/{}/merge_requests/1", project.id);
    let descriptions = gitlab_requests(&gitlab, "PUT", &mr).await;
    assert_eq!(descriptions.len(), 1, "{descriptions:?}");
    check(
        &app,
        1,
        &said,
        descriptions[0]["description"].as_str().unwrap(),
    )
    .await;
}

#[tokio::test]
async fn github_every_command_does_what_it_says() {
    let github = FakeGithub::start("ghp_every").await;
    let repo = github
        .add_project(
            &ProjectFixture::new("octo/every")
                .member(583_231, "octocat")
                .mr(MrFixture::new(2)
                    .head(HEAD)
                    .description(AUTHORS_TEXT)
                    .file("src/app.rs", DIFF)),
        )
        .await;
    let ai = fake_ai(answer).await;
    let app = app_with_ai(&ai, &[]).await;
    let config = create_github_config(&app, &github).await;
    crate::review_pipeline::sync_projects(&app, &config).await;
    for (n, (command, _)) in (0u64..).zip(EVERY_COMMAND) {
        let hook = pr_comment(&repo, 8800 + n, ("octocat", "COLLABORATOR"), command);
        answered(&app, &deliver_b(&app, "issue_comment", &hook).await).await;
        reviews_settled(&app).await;
    }
    let requests = github.requests().await;
    let bodies = |method: &str, suffix: &str| -> Vec<Value> {
        requests
            .iter()
            .filter(|r| r.method.as_str() == method && r.url.path().ends_with(suffix))
            .filter_map(|r| serde_json::from_slice(&r.body).ok())
            .collect()
    };
    let said: Vec<String> = bodies("POST", "/issues/2/comments")
        .iter()
        .filter_map(|c| c["body"].as_str().map(str::to_owned))
        .collect();
    let descriptions = bodies("PATCH", "/pulls/2");
    assert_eq!(descriptions.len(), 1, "{descriptions:?}");
    check(&app, 2, &said, descriptions[0]["body"].as_str().unwrap()).await;
}
