//! On the fake GitHub: commands in pull request comments (describe keeps the
//! author's text, pause shows in the API), an outsider told once, a second
//! outsider and a bot not answered.

use super::*;
use crate::helpers::create_github_config;
use crate::review_pipeline::feedback::deliver_b;
use crate::review_pipeline::{app_with_ai, fake_ai};
use reviewd_testkit::FakeGithub;
use reviewd_testkit::contract::hosting::FakeServer;
use reviewd_testkit::fakes::hosting::{MrFixture, ProjectFixture};
use serde_json::{Value, json};

/// An `issue_comment` hook on pull request 2 of `repo`: comment `id` by `login`,
/// whose role in the repository is `association`.
pub(super) fn pr_comment(
    repo: &reviewd_domain::ports::ProjectRef,
    id: u64,
    (login, association): (&str, &str),
    text: &str,
) -> Value {
    let mut hook = fixture("hostB", "issue_comment.created.json");
    hook["repository"]["id"] = json!(repo.id.parse::<u64>().unwrap());
    hook["repository"]["full_name"] = json!(repo.full_path);
    hook["issue"]["number"] = json!(2);
    hook["issue"]["pull_request"] =
        json!({ "url": format!("https://api.github.com/repos/{}/pulls/2", repo.full_path) });
    hook["comment"]["id"] = json!(id);
    hook["comment"]["body"] = json!(text);
    hook["comment"]["author_association"] = json!(association);
    hook["comment"]["user"]["login"] = json!(login);
    hook["comment"]["user"]["type"] = json!(if login.ends_with("[bot]") {
        "Bot"
    } else {
        "User"
    });
    hook
}

#[tokio::test]
async fn github_commands_in_pull_request_comments_and_outsiders() {
    let github = FakeGithub::start("ghp_commands").await;
    let repo = github
        .add_project(
            &ProjectFixture::new("octo/commands")
                .member(583_231, "octocat")
                .mr(MrFixture::new(2)
                    .head(HEAD)
                    .description("Keeps the author's words.")
                    .file("src/app.rs", DIFF)),
        )
        .await;
    let ai = fake_ai(|prompt| {
        if prompt.contains("## What you are asked") {
            json!({ "answer": "Calls foo() and runs." })
        } else {
            answer(prompt)
        }
    })
    .await;
    let app = app_with_ai(&ai, &[]).await;
    let config = create_github_config(&app, &github).await;
    crate::review_pipeline::sync_projects(&app, &config).await;

    let octocat = ("octocat", "COLLABORATOR");
    let describe = pr_comment(&repo, 7001, octocat, "/reviewd describe");
    answered(&app, &deliver_b(&app, "issue_comment", &describe).await).await;
    let pause = pr_comment(&repo, 7002, octocat, "@reviewd-bot pause");
    answered(&app, &deliver_b(&app, "issue_comment", &pause).await).await;
    // An outsider is told once; a second outsider's word and a bot's get nothing.
    for (id, who, text) in [
        (7003, ("mallory", "NONE"), "/reviewd ignore"),
        (7004, ("eve", "CONTRIBUTOR"), "/reviewd resume"),
    ] {
        answered(
            &app,
            &deliver_b(&app, "issue_comment", &pr_comment(&repo, id, who, text)).await,
        )
        .await;
    }
    let bot = pr_comment(&repo, 7005, ("renovate[bot]", "NONE"), "/reviewd resume");
    answered(&app, &deliver_b(&app, "issue_comment", &bot).await).await;

    let requests = github.requests().await;
    let descriptions: Vec<Value> = requests
        .iter()
        .filter(|r| r.method.as_str() == "PATCH" && r.url.path().ends_with("/pulls/2"))
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    assert_eq!(descriptions.len(), 1, "{descriptions:?}");
    let body = descriptions[0]["body"].as_str().unwrap();
    assert!(
        body.starts_with("Keeps the author's words.") && body.contains("Calls foo() and runs."),
        "{body}"
    );
    let said: Vec<String> = requests
        .iter()
        .filter(|r| r.method.as_str() == "POST" && r.url.path().ends_with("/issues/2/comments"))
        .filter_map(|r| {
            let v: Value = serde_json::from_slice(&r.body).ok()?;
            Some(v["body"].as_str()?.to_owned())
        })
        .filter(|b| b.contains("reviewd:answer"))
        .collect();
    assert_eq!(said.len(), 3, "{said:?}");
    assert!(
        said[0].starts_with("The description's summary and walkthrough are written"),
        "{}",
        said[0]
    );
    assert!(said[1].starts_with("Automatic reviews of this merge request are paused."));
    assert!(
        said[2].starts_with("Only people who can push"),
        "{}",
        said[2]
    );

    let (talk, statuses) = talk_of(&app, 2).await;
    assert_eq!(talk["data"]["controls"]["paused"], true, "{talk}");
    assert_eq!(talk["data"]["controls"]["ignored"], false, "{talk}");
    assert_eq!(
        statuses,
        ["answered", "answered", "refused", "ignored", "ignored"],
        "{talk}"
    );
}
