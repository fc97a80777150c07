//! Conversations end to end on the stateful fake GitLab and GitHub: a developer's
//! reply in one of reviewd's threads arrives as the platform's webhook and gets one
//! answer in that thread, with the finding's code in the prompt; a rebuttal the
//! model accepts resolves the thread and is recorded; a redelivery answers nothing
//! more; a command works and shows in the API; an outsider is refused once.

mod every_command;
mod github;
mod github_commands;
mod gitlab;

pub(super) use super::feedback::deliver_a;
use super::feedback::fixture;
use super::{review_answer, wait_for};
use crate::helpers::{TestApp, json};
use reqwest::StatusCode;
use reviewd_testkit::FakeGitlab;
use serde_json::{Value, json};

pub(super) const HEAD: &str = "c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1";
pub(super) const DIFF: &str =
    "@@ -1,2 +1,4 @@\n fn main() {\n+    let x = foo().unwrap();\n+    run();\n }\n";
pub(super) const REBUTTAL: &str = "foo() cannot fail here: it is checked by the caller.";

/// Reviews files as the pipeline's fake does; answers questions, conceding a
/// finding when the reply says the caller checks it.
pub(super) fn answer(prompt: &str) -> Value {
    if !prompt.contains("## What you are asked") {
        return review_answer(prompt);
    }
    if prompt.contains("checked by the caller") {
        json!({ "answer": "You're right: the caller checks it, so unwrap() cannot panic here.", "finding_stands": false })
    } else {
        json!({ "answer": "It panics when foo() fails.", "finding_stands": true })
    }
}

/// A note hook of GitLab's shape: note `id` by `user` in discussion `discussion`.
pub(super) fn note_hook(
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
pub(super) async fn discussion_of(gitlab: &FakeGitlab, project_id: &str, note: u64) -> String {
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
pub(super) async fn answered(app: &TestApp, delivered: &Value) {
    assert_eq!(delivered["status"], "queued", "{delivered}");
    let task = wait_for(app, delivered["taskId"].as_str().unwrap()).await;
    assert_eq!(task["status"], "completed", "{task}");
}

pub(super) async fn gitlab_requests(
    gitlab: &FakeGitlab,
    http_method: &str,
    pattern: &str,
) -> Vec<Value> {
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

/// The rebuttal's answer was asked with the finding's code and the rebuttal in
/// its prompt, and the finding is recorded rejected (reviewd's own resolution
/// accepts nothing).
pub(super) async fn rebuttal_heard(app: &TestApp, ai: &wiremock::MockServer, review: &str) {
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
    let feedback = json(
        app.root()
            .await
            .get(&format!("/api/reviews/{review}/feedbacks"))
            .await,
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
}

/// What the API says of MR `iid`'s conversations (the first project's), and
/// their statuses in order.
pub(super) async fn talk_of(app: &TestApp, iid: i64) -> (Value, Vec<String>) {
    let root = app.root().await;
    let project = project_id(app).await;
    let talk = json(
        root.get(&format!(
            "/api/projects/{project}/merge-requests/{iid}/conversations"
        ))
        .await,
        StatusCode::OK,
    )
    .await;
    let statuses = talk["data"]["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["status"].as_str().map(str::to_owned))
        .collect();
    (talk, statuses)
}

pub(super) async fn project_id(app: &TestApp) -> String {
    let root = app.root().await;
    json(root.get("/api/projects").await, StatusCode::OK).await["data"]["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}
