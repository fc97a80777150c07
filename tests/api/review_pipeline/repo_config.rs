//! `.reviewd.yml` end to end, on the stateful fake GitLab and GitHub: the file at the
//! MR's head replaces the project's ignore globs, adds rules for its paths, keeps
//! comments below `minSeverity` off the MR and sets the comments' language; a file
//! that cannot be used gets one note per head and the review runs on the project's
//! settings.

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

#[tokio::test]
async fn the_file_at_the_head_sets_ignores_rules_severity_and_language() {
    let gitlab = FakeGitlab::start("glpat-repo-config").await;
    let project = gitlab
        .add_project(&ProjectFixture::new("group/configured").mr(mr(1, HEAD_A, GOOD_FILE)))
        .await;
    let ai = fake_ai(review_answer).await;
    let app = app_with_ai(&ai, &[]).await;
    let config = create_gitlab_config(&app, &gitlab).await;
    sync_project(&app, &config).await;
    create_template(&app, "Careful maintainer", TEMPLATE).await;
    create_template(&app, "Default", "You are the default template.").await;

    let task = wait_for(
        &app,
        &super::send_webhook(&app, &push(&project.id, HEAD_A)).await,
    )
    .await;
    assert_eq!(task["status"], "completed", "{task}");

    let prompts = prompts(&ai).await;
    assert!(
        prompts
            .iter()
            .all(|(system, _)| system.starts_with(TEMPLATE)),
        "the file's template wins over the global default"
    );
    assert_eq!(
        reviewed_files(&prompts),
        vec!["Cargo.lock", "src/app.rs", "src/db/pool.rs"],
        "docs/** ignored by the file, whose `ignore` replaces the project's *.lock"
    );
    assert!(prompt_for(&prompts, "src/db/pool.rs").contains(&format!("- SQL: {RULE}")));
    assert!(
        !prompt_for(&prompts, "src/app.rs").contains(RULE),
        "the rule is for src/db/** only"
    );
    assert!(
        prompts
            .iter()
            .all(|(system, _)| system.contains("every comment message in French")),
        "the language is asked for in every prompt"
    );

    let posted = gitlab.posted(&project, 1);
    let inline = inline_bodies(&posted);
    assert_eq!(inline.len(), 3, "one error per reviewed file: {inline:?}");
    assert!(
        inline.iter().all(|b| b.starts_with("**error**")),
        "the info comments are below minSeverity: {inline:?}"
    );
    assert!(notes_about_the_file(&posted).is_empty());

    // The summary (and the rating) still weigh everything found.
    let summary = posted
        .iter()
        .find_map(|p| match p {
            Posted::Comment { body, .. } if body.contains("### reviewd: rating") => Some(body),
            _ => None,
        })
        .expect("the summary comment");
    assert!(
        summary.contains("3 error(s), 0 warning(s), 3 info; 3 new comment(s)"),
        "{summary}"
    );
}

#[tokio::test]
async fn a_broken_file_is_noted_once_per_head_and_the_project_settings_apply() {
    let gitlab = FakeGitlab::start("glpat-repo-broken").await;
    let project = gitlab
        .add_project(&ProjectFixture::new("group/broken").mr(mr(1, HEAD_A, BROKEN_FILE)))
        .await;
    let ai = fake_ai(review_answer).await;
    let app = app_with_ai(&ai, &[]).await;
    let config = create_gitlab_config(&app, &gitlab).await;
    let project_id = sync_project(&app, &config).await;

    let task = wait_for(
        &app,
        &super::send_webhook(&app, &push(&project.id, HEAD_A)).await,
    )
    .await;
    assert_eq!(task["status"], "completed", "{task}");
    assert_eq!(
        reviewed_files(&prompts(&ai).await),
        vec!["docs/guide.md", "src/app.rs", "src/db/pool.rs"],
        "the project's *.lock applies, nothing of the file does"
    );
    let notes = notes_about_the_file(&gitlab.posted(&project, 1));
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("`.reviewd.yml` was not applied"),
        "{}",
        notes[0]
    );
    assert!(
        notes[0].contains("ignored"),
        "the note names the bad key: {}",
        notes[0]
    );
    assert!(notes[0].contains(&problem_marker(HEAD_A)));

    // The same head again: the same push, and a person asking for a new round.
    let again = wait_for(
        &app,
        &super::send_webhook(&app, &push(&project.id, HEAD_A)).await,
    )
    .await;
    assert_eq!(again["status"], "completed", "{again}");
    let manual = json(
        app.root()
            .await
            .post(
                "/api/reviews/trigger-manual-review",
                json!({ "projectId": project_id, "mrIid": 1 }),
            )
            .await,
        StatusCode::ACCEPTED,
    )
    .await;
    let manual = wait_for(&app, manual["data"]["task"]["id"].as_str().unwrap()).await;
    assert_eq!(manual["status"], "completed", "{manual}");
    assert_eq!(
        notes_about_the_file(&gitlab.posted(&project, 1)).len(),
        1,
        "one note per head"
    );

    // A new head with the same broken file: a note for it.
    move_head(&gitlab, &project.id, HEAD_B, BROKEN_FILE).await;
    let moved = wait_for(
        &app,
        &super::send_webhook(&app, &push(&project.id, HEAD_B)).await,
    )
    .await;
    assert_eq!(moved["status"], "completed", "{moved}");
    let notes = notes_about_the_file(&gitlab.posted(&project, 1));
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[1].contains(&problem_marker(HEAD_B)));
}

/// MR 1 of the stateful fake, now at `head` with `config` there: the MR's answer
/// with the new SHAs and the file at the new commit, mounted above the fixture's.
async fn move_head(gitlab: &FakeGitlab, project_id: &str, head: &str, config: &str) {
    let base = format!("/api/v4/projects/{project_id}/merge_requests/1");
    let current: Value = reqwest::Client::new()
        .get(format!("{}{base}", gitlab.server.uri()))
        .header("PRIVATE-TOKEN", "glpat-repo-broken")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut moved = current.clone();
    moved["sha"] = json!(head);
    moved["diff_refs"]["head_sha"] = json!(head);
    Mock::given(method("GET"))
        .and(path(base))
        .respond_with(ResponseTemplate::new(200).set_body_json(moved))
        .with_priority(1)
        .mount(&gitlab.server)
        .await;
    Mock::given(method("GET"))
        .and(path(format!(
            "/api/v4/projects/{project_id}/repository/files/.reviewd.yml/raw"
        )))
        .and(query_param("ref", head))
        .respond_with(ResponseTemplate::new(200).set_body_string(config))
        .with_priority(1)
        .mount(&gitlab.server)
        .await;
}

#[tokio::test]
async fn github_reads_the_file_through_the_contents_api() {
    let github = FakeGithub::start("ghp-repo-config").await;
    let project = github
        .add_project(&ProjectFixture::new("acme/configured").mr(mr(2, HEAD_A, GOOD_FILE)))
        .await;
    let ai = fake_ai(review_answer).await;
    let app = app_with_ai(&ai, &[]).await;
    let config = create_github_config(&app, &github).await;
    sync_project(&app, &config).await;

    let task = super::send_pull_request(&app, Some(&project), Some(HEAD_A)).await;
    let task = wait_for(&app, &task).await;
    assert_eq!(task["status"], "completed", "{task}");
    assert_eq!(
        reviewed_files(&prompts(&ai).await),
        vec!["Cargo.lock", "src/app.rs", "src/db/pool.rs"]
    );
    let posted = github.posted(&project, 2);
    assert!(
        inline_bodies(&posted)
            .iter()
            .all(|b| b.starts_with("**error**"))
    );
}

#[tokio::test]
async fn a_draft_is_skipped_when_the_file_says_so_and_an_unknown_template_is_noted() {
    let gitlab = FakeGitlab::start("glpat-repo-drafts").await;
    let draft = mr(1, HEAD_A, "skipDrafts: true\n").draft();
    let unknown = mr(2, HEAD_B, "template: Nonexistent\nskipDrafts: true\n");
    let project = gitlab
        .add_project(&ProjectFixture::new("group/drafts").mr(draft).mr(unknown))
        .await;
    let ai = fake_ai(review_answer).await;
    let app = app_with_ai(&ai, &[]).await;
    let config = create_gitlab_config(&app, &gitlab).await;
    sync_project(&app, &config).await;

    let task = wait_for(
        &app,
        &super::send_webhook(&app, &push(&project.id, HEAD_A)).await,
    )
    .await;
    assert_eq!(task["status"], "completed", "{task}");
    assert!(
        task["reviewId"].is_null(),
        "no review for a skipped draft: {task}"
    );
    assert!(prompts(&ai).await.is_empty(), "the model was not asked");
    assert!(
        gitlab.posted(&project, 1).is_empty(),
        "nothing posted on the draft"
    );

    // Not a draft: reviewed, with the project's template and a note about the name.
    let mut hook = push(&project.id, HEAD_B);
    hook["object_attributes"]["iid"] = json!(2);
    let task = wait_for(&app, &super::send_webhook(&app, &hook).await).await;
    assert_eq!(task["status"], "completed", "{task}");
    assert!(task["reviewId"].is_string());
    assert!(!prompts(&ai).await.is_empty());
    let notes = notes_about_the_file(&gitlab.posted(&project, 2));
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("names an unknown template")
            && notes[0].contains("no template named `Nonexistent`"),
        "{}",
        notes[0]
    );
}
