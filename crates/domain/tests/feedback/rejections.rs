//! A comment rejected twice on a project is not posted there again.

use super::*;

#[tokio::test]
async fn a_comment_rejected_twice_on_a_project_is_not_posted_there_again_unless_switched_off() {
    let (world, project, on_platform) = world().await;
    let (_, fp) = review(&world, &project, 1, "h1").await;
    world.platform.react(&fp, "thumbsdown", "ana");
    world.feedback.collect(project.id, 1).await.unwrap();

    // Rejected once: still posted on MR 2, and rejected there too.
    let (_, same) = review(&world, &project, 2, "h1").await;
    assert_eq!(same, fp);
    world.platform.reply(&fp, "false positive", "bo");
    world.feedback.collect(project.id, 2).await.unwrap();
    let posted_before = world.platform.inline_comments().len();

    // Twice: MR 3 gets the summary, not the comment.
    let task = world.enqueue(&project, 3, "h1").await;
    assert!(matches!(
        world.run(&task).await,
        RunOutcome::Completed { .. }
    ));
    assert_eq!(world.platform.inline_comments().len(), posted_before);
    let summary = world
        .platform
        .posted(&on_platform, 3)
        .into_iter()
        .find_map(|p| match p {
            Posted::Comment { body, .. } => Some(body),
            _ => None,
        })
        .unwrap();
    assert!(
        summary.contains("1 comment(s) left out: readers of this project rejected them before"),
        "{summary}"
    );

    // Switched off, the comment is posted again (a new head of MR 3).
    world
        .projects
        .update_settings(
            project.id,
            ProjectSettingsChanges {
                suppress_rejected: Some(false),
                ..ProjectSettingsChanges::default()
            },
        )
        .await
        .unwrap();
    world.platform.put_merge_request(&on_platform, mr(3, "h2"));
    let task = world.enqueue(&project, 3, "h2").await;
    assert!(matches!(
        world.run(&task).await,
        RunOutcome::Completed { .. }
    ));
    assert_eq!(world.platform.inline_comments().len(), posted_before + 1);
}
