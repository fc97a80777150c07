//! Committable suggestions end to end, on the stateful fake GitLab and GitHub (which
//! refuse positions the real ones refuse): the model proposes one suggestion that
//! fits the diff and one that reaches past it. The fitting one is posted in the
//! platform's exact syntax, the other comment is posted without its block, and the
//! review's comments in the API show the stored suggestion (null for the stripped one).

use super::{app_with_ai, fake_ai, wait_for};
use crate::helpers::{TestApp, create_github_config, create_gitlab_config, json};
use reqwest::StatusCode;
use reviewd_domain::review::fingerprint::fingerprint;
use reviewd_domain::review::markers::comment_marker;
use reviewd_testkit::contract::hosting::FakeServer;
use reviewd_testkit::fakes::hosting::{MrFixture, Posted, ProjectFixture};
use reviewd_testkit::{FakeGithub, FakeGitlab};
use serde_json::{Value, json};

const HEAD: &str = "5ab1e5ab1e5ab1e5ab1e5ab1e5ab1e5ab1e5ab1e";
const PATH: &str = "src/app.rs";
/// New side: 1 context, 2 and 3 added, 4 and 5 context.
const DIFF: &str = "@@ -1,3 +1,5 @@\n fn main() {\n+    let x = foo().unwrap();\n+    let y = x + 1;\n     run();\n }\n";
const FITS: &str = "unwrap() panics when foo fails; return the error instead.";
const MISPLACED: &str = "x is shadowed further down.";
const CODE: &str = "    let x = foo()?;\n    let y = x + 1;";

/// A comment on line 3 replacing lines 2-3 (inside the hunk), and one on line 2
/// whose suggestion runs to line 9 (outside it).
fn answer(_prompt: &str) -> Value {
    json!({ "summary": "Adds the entry point.", "comments": [
        { "line": 3, "severity": "error", "message": FITS,
          "suggestion": { "startLine": 2, "endLine": 3, "code": CODE } },
        { "line": 2, "severity": "warning", "message": MISPLACED,
          "suggestion": { "startLine": 2, "endLine": 9, "code": "    let x2 = foo()?;" } },
    ]})
}

/// The text reviewd writes before any suggestion block: severity, message, marker.
fn body(severity: &str, message: &str) -> String {
    format!(
        "**{severity}**: {message}\n\n{}",
        comment_marker(&fingerprint(PATH, message))
    )
}

fn mr(iid: i64) -> MrFixture {
    MrFixture::new(iid).head(HEAD).file(PATH, DIFF)
}

/// The review's comments as the API lists them (by line).
async fn api_comments(app: &TestApp, task: &Value) -> Vec<Value> {
    let review = task["reviewId"].as_str().expect("the task's review");
    let url = format!("/api/reviews/{review}/comments");
    let page = json(app.root().await.get(&url).await, StatusCode::OK).await;
    page["data"]["items"].as_array().unwrap().clone()
}

/// What the API shows of the two comments: the stored suggestion, null for the
/// stripped one.
fn assert_api_shows_the_suggestion(comments: &[Value]) {
    let by_message = |m: &str| comments.iter().find(|c| c["message"] == m).unwrap().clone();
    assert_eq!(
        by_message(FITS)["suggestion"],
        json!({ "startLine": 2, "endLine": 3, "code": CODE })
    );
    assert_eq!(by_message(FITS)["lineNumber"], 3);
    assert_eq!(by_message(MISPLACED)["suggestion"], Value::Null);
    assert_eq!(by_message(MISPLACED)["lineNumber"], 2);
}

#[tokio::test]
async fn gitlab_gets_a_suggestion_block_counted_from_the_comments_line() {
    let gitlab = FakeGitlab::start("glpat-suggest").await;
    let project = gitlab
        .add_project(&ProjectFixture::new("group/suggest").mr(mr(4)))
        .await;
    let ai = fake_ai(answer).await;
    let app = app_with_ai(&ai, &[]).await;
    let config = create_gitlab_config(&app, &gitlab).await;
    super::sync_projects(&app, &config).await;

    let task_id = super::send_webhook(&app, &super::push(&project.id, 4, HEAD)).await;
    let task = wait_for(&app, &task_id).await;
    assert_eq!(task["status"], "completed", "{task}");

    let discussions: Vec<Value> = gitlab
        .requests()
        .await
        .into_iter()
        .filter(|r| r.method.as_str() == "POST" && r.url.path().ends_with("/discussions"))
        .map(|r| FakeGitlab::params(&r))
        .collect();
    let sent: Vec<(Value, Value)> = discussions
        .iter()
        .map(|d| (d["position"]["new_line"].clone(), d["body"].clone()))
        .collect();
    assert_eq!(
        sent,
        vec![
            (
                json!(3),
                json!(format!(
                    "{}\n\n```suggestion:-1+0\n{CODE}\n```",
                    body("error", FITS)
                ))
            ),
            (json!(2), json!(body("warning", MISPLACED))),
        ],
        "one line above the comment and none below; the misplaced block stripped"
    );
    let accepted = gitlab
        .posted(&project, 4)
        .into_iter()
        .filter(|p| matches!(p, Posted::Inline { .. }))
        .count();
    assert_eq!(accepted, 2, "GitLab placed both comments");
    assert_api_shows_the_suggestion(&api_comments(&app, &task).await);
}

#[tokio::test]
async fn github_gets_a_suggestion_on_the_lines_it_replaces() {
    let github = FakeGithub::start("ghp_suggest").await;
    let project = github
        .add_project(&ProjectFixture::new("Codertocat/Suggest").mr(mr(2)))
        .await;
    let ai = fake_ai(answer).await;
    let app = app_with_ai(&ai, &[]).await;
    let config = create_github_config(&app, &github).await;
    super::sync_projects(&app, &config).await;

    let task = wait_for(
        &app,
        &super::send_pull_request(&app, Some(&project), Some(HEAD)).await,
    )
    .await;
    assert_eq!(task["status"], "completed", "{task}");

    let reviews: Vec<Value> = github
        .requests()
        .await
        .into_iter()
        .filter(|r| r.method.as_str() == "POST" && r.url.path().ends_with("/pulls/2/reviews"))
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    assert_eq!(reviews.len(), 1, "one review holds both comments");
    assert_eq!(
        reviews[0]["comments"],
        json!([
            { "path": PATH, "start_line": 2, "start_side": "RIGHT", "line": 3, "side": "RIGHT",
              "body": format!("{}\n\n```suggestion\n{CODE}\n```", body("error", FITS)) },
            { "path": PATH, "line": 2, "side": "RIGHT", "body": body("warning", MISPLACED) },
        ]),
        "the suggestion's comment spans lines 2-3; the misplaced block stripped"
    );
    let accepted = github
        .posted(&project, 2)
        .into_iter()
        .filter(|p| matches!(p, Posted::Inline { .. }))
        .count();
    assert_eq!(accepted, 2, "GitHub placed the review");
    assert_api_shows_the_suggestion(&api_comments(&app, &task).await);
}
