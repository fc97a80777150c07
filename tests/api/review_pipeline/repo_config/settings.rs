//! The file at the head sets ignores, rules, severity and language; on GitHub it is read through
//! the contents API.

use super::*;

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
        &super::super::send_webhook(&app, &push(&project.id, HEAD_A)).await,
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
async fn github_reads_the_file_through_the_contents_api() {
    let github = FakeGithub::start("ghp-repo-config").await;
    let project = github
        .add_project(&ProjectFixture::new("acme/configured").mr(mr(2, HEAD_A, GOOD_FILE)))
        .await;
    let ai = fake_ai(review_answer).await;
    let app = app_with_ai(&ai, &[]).await;
    let config = create_github_config(&app, &github).await;
    sync_project(&app, &config).await;

    let task = super::super::send_pull_request(&app, Some(&project), Some(HEAD_A)).await;
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
