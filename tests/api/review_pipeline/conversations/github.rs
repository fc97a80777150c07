//! On the fake GitHub: a collaborator's rebuttal in a review thread is answered
//! there once, and the thread resolved through GraphQL.

use super::*;
use crate::helpers::create_github_config;
use crate::review_pipeline::feedback::{deliver_b, opened_pr};
use crate::review_pipeline::{app_with_ai, fake_ai, wait_for};
use reviewd_testkit::FakeGithub;
use reviewd_testkit::contract::hosting::FakeServer;
use reviewd_testkit::fakes::hosting::{MrFixture, ProjectFixture};
use serde_json::{Value, json};

#[tokio::test]
async fn github_a_reply_in_a_review_thread_is_answered_there_and_conceded() {
    let github = FakeGithub::start("ghp_talk").await;
    let repo = github
        .add_project(
            &ProjectFixture::new("octo/talk")
                .member(583_231, "octocat")
                .mr(MrFixture::new(2).head(HEAD).file("src/app.rs", DIFF)),
        )
        .await;
    let ai = fake_ai(answer).await;
    let app = app_with_ai(&ai, &[]).await;
    let config = create_github_config(&app, &github).await;
    crate::review_pipeline::sync_projects(&app, &config).await;
    let queued = deliver_b(&app, "pull_request", &opened_pr(&repo, HEAD)).await;
    let task = wait_for(&app, queued["taskId"].as_str().unwrap()).await;
    let review = task["reviewId"].as_str().unwrap().to_owned();

    let (finding, _) = github
        .review_comments(&repo.full_path, 2)
        .into_iter()
        .find(|(_, body)| body.contains("unwrap() panics"))
        .unwrap();
    let reply_id = github
        .reply_as(&repo.full_path, finding, REBUTTAL, "octocat")
        .unwrap();
    let mut reply = fixture("hostB", "pull_request_review_comment.reply.json");
    reply["repository"]["id"] = json!(repo.id.parse::<u64>().unwrap());
    reply["repository"]["full_name"] = json!(repo.full_path);
    reply["pull_request"]["number"] = json!(2);
    reply["comment"]["id"] = json!(reply_id);
    reply["comment"]["in_reply_to_id"] = json!(finding);
    reply["comment"]["body"] = json!(REBUTTAL);
    answered(
        &app,
        &deliver_b(&app, "pull_request_review_comment", &reply).await,
    )
    .await;

    let replies: Vec<Value> = github
        .requests()
        .await
        .into_iter()
        .filter(|r| {
            r.method.as_str() == "POST"
                && r.url
                    .path()
                    .ends_with(&format!("/pulls/2/comments/{finding}/replies"))
        })
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    let answers: Vec<&str> = replies
        .iter()
        .filter_map(|r| r["body"].as_str())
        .filter(|b| b.contains("reviewd:answer"))
        .collect();
    assert_eq!(answers.len(), 1, "{replies:?}");
    assert!(answers[0].starts_with("You're right"));
    let resolved = github
        .requests()
        .await
        .into_iter()
        .filter(|r| r.url.path() == "/api/graphql")
        .any(|r| String::from_utf8_lossy(&r.body).contains("resolveReviewThread"));
    assert!(resolved, "the review thread is resolved through GraphQL");
    rebuttal_heard(&app, &ai, &review).await;
    // Redelivered: the same single answer.
    let again = deliver_b(&app, "pull_request_review_comment", &reply).await;
    assert_eq!(again["status"], "ignored", "{again}");
}
