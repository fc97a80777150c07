//! Drafts skipped when the file says so; an unknown template noted.

use super::*;

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
        &super::super::send_webhook(&app, &push(&project.id, HEAD_A)).await,
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
    let task = wait_for(&app, &super::super::send_webhook(&app, &hook).await).await;
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
