//! A pushed fix of the commented line marks the comment implemented.

use super::*;

#[tokio::test]
async fn a_pushed_fix_of_the_commented_line_marks_the_comment_implemented() {
    let (world, project, on_platform) = world().await;
    let (review_id, _) = review(&world, &project, 1, "h1").await;
    world.ai.answer_with(|_| Ok(answer("Fine.", &[])));

    // h2 changes line 3 only: the comment on line 2 stands.
    world.platform.put_merge_request(&on_platform, mr(1, "h2"));
    let line_3 = "@@ -1,3 +1,3 @@\n let a = 1;\n let b = 2;\n-let c = 3;\n+let c = 4;\n";
    world
        .platform
        .add_compare(&on_platform, "h1", "h2", vec![modified("src/a.rs", line_3)]);
    let task = world.enqueue(&project, 1, "h2").await;
    assert!(matches!(
        world.run(&task).await,
        RunOutcome::Completed { .. }
    ));
    assert!(records(&world, review_id).await.is_empty());

    // h3 replaces line 2. The comment was posted at h1, whose numbering it
    // uses: the round compares h1 with h3 too (h2→h3 it had already).
    world.platform.put_merge_request(&on_platform, mr(1, "h3"));
    let line_2 = "@@ -1,3 +1,3 @@\n let a = 1;\n-let b = 2;\n+let _b = 2;\n let c = 4;\n";
    world
        .platform
        .add_compare(&on_platform, "h2", "h3", vec![modified("src/a.rs", line_2)]);
    world
        .platform
        .add_compare(&on_platform, "h1", "h3", vec![modified("src/a.rs", line_2)]);
    let compares = || {
        world
            .platform
            .calls()
            .iter()
            .filter(|op| **op == Op::Compare)
            .count()
    };
    let before = compares();
    let task = world.enqueue(&project, 1, "h3").await;
    assert!(matches!(
        world.run(&task).await,
        RunOutcome::Completed { .. }
    ));
    assert_eq!(
        records(&world, review_id).await,
        [pair("implemented", None)]
    );
    assert_eq!(
        compares() - before,
        2,
        "h2→h3 for the round, h1→h3 for the comment"
    );

    // Once implemented, a comment costs no more comparisons.
    world.platform.put_merge_request(&on_platform, mr(1, "h4"));
    world.platform.add_compare(&on_platform, "h3", "h4", vec![]);
    let before = compares();
    let task = world.enqueue(&project, 1, "h4").await;
    assert!(matches!(
        world.run(&task).await,
        RunOutcome::Completed { .. }
    ));
    assert_eq!(compares() - before, 1);
    assert_eq!(
        world
            .feedback
            .acceptance_rate(FeedbackScope::Project(project.id))
            .await
            .unwrap(),
        Some(1.0)
    );
}

#[tokio::test]
async fn a_full_review_still_marks_a_fixed_comment_implemented() {
    let (world, project, on_platform) = world().await;
    let (review_id, _) = review(&world, &project, 1, "h1").await;
    world.ai.answer_with(|_| Ok(answer("Fine.", &[])));
    world.platform.put_merge_request(&on_platform, mr(1, "h2"));
    let line_2 = "@@ -1,3 +1,3 @@\n let a = 1;\n-let b = 2;\n+let _b = 2;\n let c = 3;\n";
    world
        .platform
        .add_compare(&on_platform, "h1", "h2", vec![modified("src/a.rs", line_2)]);
    // `review full`: every file again, and the fix of line 2 still seen.
    let full = world
        .tasks
        .enqueue(reviewd_domain::model::NewReviewTask {
            triggered_by: reviewd_domain::model::TriggeredBy::Manual,
            full_review: true,
            ..reviewd_testkit::contract::seed::new_task(&project, 1, "h2")
        })
        .await
        .unwrap()
        .task()
        .clone();
    assert!(matches!(
        world.run(&full).await,
        RunOutcome::Completed { .. }
    ));
    assert_eq!(
        records(&world, review_id).await,
        [pair("implemented", None)]
    );
    let rounds = world.stores.review_queries.rounds(review_id).await.unwrap();
    assert!(rounds.iter().all(|r| !r.is_differential), "{rounds:?}");
}
