//! On the fake GitLab: a developer's rebuttal in reviewd's discussion is answered
//! there once and resolves it; a redelivered hook answers nothing more; a command
//! works and shows in the API; an outsider is refused once.

use super::*;
use crate::helpers::create_gitlab_config;
use crate::review_pipeline::{app_with_ai, fake_ai, wait_for};
use reviewd_testkit::FakeGitlab;
use reviewd_testkit::contract::hosting::FakeServer;
use reviewd_testkit::fakes::hosting::{MrFixture, ProjectFixture};
use serde_json::json;
use std::time::Duration;

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
    crate::review_pipeline::sync_projects(&app, &config).await;
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
    rebuttal_heard(&app, &ai, &review).await;

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

    // A command, and the API shows its effect; an outsider is refused once, and a
    // project's bot (GitLab's `project_<id>_bot_…` token users) never answered.
    let pause = note_hook(&project.id, 880_001, None, (4101, "ana"), "/reviewd pause");
    answered(&app, &deliver_a(&app, "Note Hook", &pause).await).await;
    for (id, text) in [
        (880_002, "/reviewd resume"),
        (880_003, "@reviewer-bot review"),
    ] {
        let outsider = note_hook(&project.id, id, None, (9999, "mallory"), text);
        answered(&app, &deliver_a(&app, "Note Hook", &outsider).await).await;
    }
    let bot = note_hook(
        &project.id,
        880_004,
        None,
        (9998, "project_7_bot_5f1e"),
        "/reviewd ignore",
    );
    answered(&app, &deliver_a(&app, "Note Hook", &bot).await).await;
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
    let (talk, statuses) = talk_of(&app, 1).await;
    assert_eq!(talk["data"]["controls"]["paused"], true, "{talk}");
    assert_eq!(talk["data"]["controls"]["changedBy"], "ana");
    assert_eq!(
        statuses,
        ["answered", "answered", "refused", "ignored", "ignored"],
        "{talk}"
    );
}
