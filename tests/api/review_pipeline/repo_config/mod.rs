//! `.reviewd.yml` end to end, on the stateful fake GitLab and GitHub: the file at the
//! MR's head replaces the project's ignore globs, adds rules for its paths, keeps
//! comments below `minSeverity` off the MR and sets the comments' language; a file
//! that cannot be used gets one note per head and the review runs on the project's
//! settings.

mod broken;
mod drafts;
mod settings;

use super::{app_with_ai, fake_ai, review_answer, wait_for};
use crate::helpers::{TestApp, create_github_config, create_gitlab_config, json};
use reqwest::StatusCode;
use reviewd_domain::review::repo_config::problem_marker;
use reviewd_testkit::contract::hosting::FakeServer;
use reviewd_testkit::fakes::hosting::{MrFixture, Posted, ProjectFixture};
use reviewd_testkit::{FakeGithub, FakeGitlab, prompt_of};
use serde_json::{Value, json};
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

const HEAD_A: &str = "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1";
const HEAD_B: &str = "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2";
/// New side: 1 context, 2 added, 3 and 4 context (as `review_answer` expects).
const DIFF: &str = "@@ -1,3 +1,4 @@\n fn main() {\n+    let x = foo().unwrap();\n     run();\n }\n";
const RULE: &str = "Queries must be parameterised.";

const GOOD_FILE: &str = "\
# reviewd settings for this repository
ignore:
  - \"docs/**\"
rules:
  - name: SQL
    paths: [\"src/db/**\"]
    instructions: Queries must be parameterised.
template: Careful maintainer
minSeverity: error
language: French
";
const TEMPLATE: &str = "You review like a careful maintainer.";

/// A typo'd key: the whole file is refused.
const BROKEN_FILE: &str = "ignored:\n  - \"src/**\"\n";

fn mr(iid: i64, head: &str, config: &str) -> MrFixture {
    MrFixture::new(iid)
        .head(head)
        .file("src/app.rs", DIFF)
        .file("src/db/pool.rs", DIFF)
        .file("docs/guide.md", DIFF)
        .file("Cargo.lock", DIFF)
        .repo_file(".reviewd.yml", config)
}

/// The app's only project, synced from `config`, with `*.lock` ignored by the
/// project's settings. Returns its id.
async fn sync_project(app: &TestApp, config: &str) -> String {
    super::sync_projects(app, config).await;
    let root = app.root().await;
    let id = json(root.get("/api/projects").await, StatusCode::OK).await["data"]["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    json(
        root.patch(
            &format!("/api/projects/{id}"),
            json!({ "fileIgnorePatterns": ["*.lock"] }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    id
}

/// A global template; `Default` is made the default one.
async fn create_template(app: &TestApp, name: &str, content: &str) {
    let body = json!({ "name": name, "content": content, "isDefault": name == "Default" });
    json(
        app.root().await.post("/api/reviews/templates", body).await,
        StatusCode::OK,
    )
    .await;
}

/// A hostA push of MR 1 of project `gitlab_id` at `head`.
fn push(gitlab_id: &str, head: &str) -> Value {
    super::push(gitlab_id, 1, head)
}

/// What the fake AI was asked about the files: (system prompt, user prompt) per
/// call, the summary calls left out.
async fn prompts(ai: &MockServer) -> Vec<(String, String)> {
    ai.received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| !reviewd_testkit::is_summary_call(r))
        .map(|r| {
            let body: Value = serde_json::from_slice(&r.body).unwrap();
            let system = body["messages"][0]["content"].as_str().unwrap().to_owned();
            (system, prompt_of(r))
        })
        .collect()
}

fn reviewed_files(prompts: &[(String, String)]) -> Vec<&'static str> {
    let mut files: Vec<&str> = [
        "src/app.rs",
        "src/db/pool.rs",
        "docs/guide.md",
        "Cargo.lock",
    ]
    .into_iter()
    .filter(|f| {
        prompts
            .iter()
            .any(|(_, p)| p.contains(&format!("File under review: {f} ")))
    })
    .collect();
    files.sort_unstable();
    files
}

fn prompt_for<'a>(prompts: &'a [(String, String)], file: &str) -> &'a str {
    &prompts
        .iter()
        .find(|(_, p)| p.contains(&format!("File under review: {file} ")))
        .unwrap()
        .1
}

fn notes_about_the_file(posted: &[Posted]) -> Vec<String> {
    posted
        .iter()
        .filter_map(|p| match p {
            Posted::Comment { body, .. } if body.contains("<!-- reviewd:config-error:") => {
                Some(body.clone())
            }
            _ => None,
        })
        .collect()
}

fn inline_bodies(posted: &[Posted]) -> Vec<String> {
    posted
        .iter()
        .filter_map(|p| match p {
            Posted::Inline { comment, .. } => Some(comment.body.clone()),
            _ => None,
        })
        .collect()
}
