//! Conversations end to end on the stateful fake GitLab and GitHub: a developer's
//! reply in one of reviewd's threads arrives as the platform's webhook and gets one
//! answer in that thread, with the finding's code in the prompt; a rebuttal the
//! model accepts resolves the thread and is recorded; a redelivery answers nothing
//! more; a command works and shows in the API; an outsider is refused once.

use super::feedback::{deliver_b, fixture};
use super::{app_with_ai, fake_ai, review_answer, wait_for};
use crate::helpers::{TestApp, create_github_config, create_gitlab_config, json};
use reqwest::StatusCode;
use reviewd_testkit::contract::hosting::FakeServer;
use reviewd_testkit::fakes::hosting::{MrFixture, ProjectFixture};
use reviewd_testkit::{FakeGithub, FakeGitlab};
use serde_json::{Value, json};
use std::time::Duration;

const HEAD: &str = "c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1";
const DIFF: &str = "@@ -1,2 +1,4 @@\n fn main() {\n+    let x = foo().unwrap();\n+    run();\n }\n";
const REBUTTAL: &str = "foo() cannot fail here: it is checked by the caller.";

/// Reviews files as the pipeline's fake does; answers questions, conceding a
/// finding when the reply says the caller checks it.
fn answer(prompt: &str) -> Value {
    if !prompt.contains("## What you are asked") {
        return review_answer(prompt);
    }
    if prompt.contains("checked by the caller") {
        json!({ "answer": "You're right: the caller checks it, so unwrap() cannot panic here.", "finding_stands": false })
    } else {
        json!({ "answer": "It panics when foo() fails.", "finding_stands": true })
    }
}

async fn deliver_a(app: &TestApp, event: &str, body: &Value) -> Value {
    let r = reqwest::Client::new()
        .post(app.url("/api/webhook/hostA"))
        .header("X-Gitlab-Token", "hook-secret-a")
        .header("X-Gitlab-Event", event)
        .json(body)
        .send()
        .await
        .unwrap();
    json(r, StatusCode::OK).await["data"].clone()
}

/// A note hook of GitLab's shape: note `id` by `user` in discussion `discussion`.
fn note_hook(
    project_id: &str,
    id: u64,
    discussion: Option<&str>,
    user: (u64, &str),
    text: &str,
) -> Value {
    let mut hook = fixture("hostA", "note_diff_merge_request.json");
    hook["project"]["id"] = json!(project_id.parse::<u64>().unwrap());
    hook["merge_request"]["iid"] = json!(1);
    hook["object_attributes"]["id"] = json!(id);
    hook["object_attributes"]["note"] = json!(text);
    hook["object_attributes"]["discussion_id"] = json!(discussion.unwrap_or("0000ffff"));
    hook["object_attributes"]["type"] = if discussion.is_some() {
        json!("DiscussionNote")
    } else {
        Value::Null
    };
    hook["user"]["id"] = json!(user.0);
    hook["user"]["username"] = json!(user.1);
    hook
}

/// The GitLab discussion that holds note `note`.
async fn discussion_of(gitlab: &FakeGitlab, project_id: &str, note: u64) -> String {
    let url = format!(
        "{}/api/v4/projects/{project_id}/merge_requests/1/discussions",
        gitlab.base_url()
    );
    let discussions: Value = reqwest::Client::new()
        .get(url)
        .header("PRIVATE-TOKEN", gitlab.token.as_str())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    discussions
        .as_array()
        .unwrap()
        .iter()
        .find(|d| {
            d["notes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n["id"] == note)
        })
        .map(|d| d["id"].as_str().unwrap().to_owned())
        .unwrap()
}

/// The answer queued by a delivery, run to its end.
async fn answered(app: &TestApp, delivered: &Value) {
    assert_eq!(delivered["status"], "queued", "{delivered}");
    let task = wait_for(app, delivered["taskId"].as_str().unwrap()).await;
    assert_eq!(task["status"], "completed", "{task}");
}

async fn gitlab_requests(gitlab: &FakeGitlab, http_method: &str, pattern: &str) -> Vec<Value> {
    let re = regex_lite(pattern);
    gitlab
        .requests()
        .await
        .into_iter()
        .filter(|r| r.method.as_str() == http_method && re(r.url.path()))
        .map(|r| FakeGitlab::params(&r))
        .collect()
}

/// A path matcher: `*` stands for one segment.
fn regex_lite(pattern: &str) -> impl Fn(&str) -> bool {
    let parts: Vec<String> = pattern.split('/').map(str::to_owned).collect();
    move |path: &str| {
        let segments: Vec<&str> = path.split('/').collect();
        segments.len() == parts.len()
            && segments.iter().zip(&parts).all(|(s, p)| p == "*" || s == p)
    }
}

#[tokio::test]
async fn gitlab_replies_commands_and_outsiders() {
    let gitlab = FakeGitlab::start("glpat-talk").await;
    let project = gitlab
        .add_project(
            &ProjectFixture::new("group/talk")
                .member(4101, "ana")
                .mr(MrFixture::new(1).head(HEAD).file("src/app.rs", DIFF)),
        )
        .await;
    let ai = fake_ai(answer).await;
    let app = app_with_ai(&ai, &[]).await;
    let config = create_gitlab_config(&app, &gitlab).await;
    super::sync_projects(&app, &config).await;
    let mut push = fixture("hostA", "merge_request.json");
    push["project"]["id"] = json!(project.id.parse::<u64>().unwrap());
    push["object_attributes"]["iid"] = json!(1);
    push["object_attributes"]["last_commit"]["id"] = json!(HEAD);
    let queued = deliver_a(&app, "Merge Request Hook", &push).await;
    let task = wait_for(&app, queued["taskId"].as_str().unwrap()).await;
    let review = task["reviewId"].as_str().unwrap().to_owned();

    // ana rebuts the unwrap() finding in its thread.
    let (finding, _) = gitlab
        .line_comment_ids(&project.id, 1)
        .into_iter()
        .find(|(_, body)| body.contains("unwrap() panics"))
        .unwrap();
    let reply = gitlab
        .reply_as(&project.id, finding, REBUTTAL, "ana")
        .unwrap();
    let discussion = discussion_of(&gitlab, &project.id, finding).await;
    let hook = note_hook(
        &project.id,
        reply,
        Some(&discussion),
        (4101, "ana"),
        REBUTTAL,
    );
    answered(&app, &deliver_a(&app, "Note Hook", &hook).await).await;

    let replies = gitlab_requests(
        &gitlab,
        "POST",
        &format!(
            "/api/v4/projects/{}/merge_requests/1/discussions/{discussion}/notes",
            project.id
        ),
    )
    .await;
    assert_eq!(replies.len(), 1, "{replies:?}");
    let body = replies[0]["body"].as_str().unwrap();
    assert!(body.starts_with("You're right"), "{body}");
    assert!(body.contains(&format!("<!-- reviewd:answer:{reply} -->")));
    let resolved = gitlab_requests(
        &gitlab,
        "PUT",
        &format!(
            "/api/v4/projects/{}/merge_requests/1/discussions/{discussion}",
            project.id
        ),
    )
    .await;
    assert_eq!(resolved.len(), 1, "the thread is resolved");
    // The model saw the finding's code and the rebuttal.
    let prompts: Vec<String> = ai
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(reviewd_testkit::prompt_of)
        .filter(|p| p.contains("## What you are asked"))
        .collect();
    assert_eq!(prompts.len(), 1);
    assert!(prompts[0].contains("let x = foo().unwrap();") && prompts[0].contains(REBUTTAL));
    let root = app.root().await;
    let feedback = json(
        root.get(&format!("/api/reviews/{review}/feedbacks")).await,
        StatusCode::OK,
    )
    .await;
    let statuses: Vec<&str> = feedback["data"]["feedbacks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["trackingStatus"].as_str())
        .collect();
    assert!(
        statuses.contains(&"rejected") && !statuses.contains(&"accepted"),
        "{statuses:?}"
    );

    // The same hook again: nothing more is said.
    let again = deliver_a(&app, "Note Hook", &hook).await;
    assert_eq!(again["status"], "ignored", "{again}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        gitlab_requests(
            &gitlab,
            "POST",
            &format!(
                "/api/v4/projects/{}/merge_requests/1/discussions/{discussion}/notes",
                project.id
            )
        )
        .await
        .len(),
        1
    );

    // A command, and the API shows its effect; an outsider is refused once.
    let pause = note_hook(&project.id, 880_001, None, (4101, "ana"), "/reviewd pause");
    answered(&app, &deliver_a(&app, "Note Hook", &pause).await).await;
    for (id, text) in [
        (880_002, "/reviewd resume"),
        (880_003, "@reviewer-bot review"),
    ] {
        let outsider = note_hook(&project.id, id, None, (9999, "mallory"), text);
        answered(&app, &deliver_a(&app, "Note Hook", &outsider).await).await;
    }
    let notes = gitlab_requests(
        &gitlab,
        "POST",
        &format!("/api/v4/projects/{}/merge_requests/1/notes", project.id),
    )
    .await;
    let said: Vec<&str> = notes
        .iter()
        .filter_map(|n| n["body"].as_str())
        .filter(|b| b.contains("reviewd:answer"))
        .collect();
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(said[0].starts_with("Automatic reviews of this merge request are paused."));
    assert!(said[1].starts_with("Only people who can push"));
    let talk = json(
        root.get(&format!(
            "/api/projects/{}/merge-requests/1/conversations",
            project_id(&app).await
        ))
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(talk["data"]["controls"]["paused"], true, "{talk}");
    assert_eq!(talk["data"]["controls"]["changedBy"], "ana");
    let statuses: Vec<&str> = talk["data"]["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["status"].as_str())
        .collect();
    assert_eq!(
        statuses,
        ["answered", "answered", "refused", "ignored"],
        "{talk}"
    );
}

async fn project_id(app: &TestApp) -> String {
    let root = app.root().await;
    json(root.get("/api/projects").await, StatusCode::OK).await["data"]["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

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
    super::sync_projects(&app, &config).await;
    let mut opened = fixture("hostB", "pull_request.opened.json");
    opened["repository"]["id"] = json!(repo.id.parse::<u64>().unwrap());
    opened["repository"]["full_name"] = json!(repo.full_path);
    opened["pull_request"]["number"] = json!(2);
    opened["number"] = json!(2);
    opened["pull_request"]["head"]["sha"] = json!(HEAD);
    let queued = deliver_b(&app, "pull_request", &opened).await;
    wait_for(&app, queued["taskId"].as_str().unwrap()).await;

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
    // Redelivered: the same single answer.
    let again = deliver_b(&app, "pull_request_review_comment", &reply).await;
    assert_eq!(again["status"], "ignored", "{again}");
}
