//! Threads read into feedback records, on platforms with and without threads, and the periodic pass.

use super::*;

#[tokio::test]
async fn a_threads_reactions_replies_and_resolution_become_records_and_follow_it() {
    let (world, project, _) = world().await;
    let (review_id, fp) = review(&world, &project, 1, "h1").await;
    assert!(world.platform.react(&fp, "thumbsup", "ana"));
    assert!(world.platform.react(&fp, "thumbsdown", "bo"));
    assert!(
        world.platform.react(&fp, "tada", "cy"),
        "no verdict, no record"
    );
    assert!(world.platform.reply(&fp, "Won’t fix: it is intended", "cy"));
    assert!(world.platform.reply(&fp, "let me think", "dee"));
    assert!(world.platform.resolve(&fp, Some("ana")));

    let collected = world.feedback.collect(project.id, 1).await.unwrap();
    assert_eq!((collected.threads, collected.recorded), (1, 4));
    assert_eq!(
        records(&world, review_id).await,
        [
            pair("accepted", Some("ana")),
            pair("accepted", Some("ana")),
            pair("rejected", Some("bo")),
            pair("rejected", Some("cy")),
        ]
    );
    // Read again: nothing new, nothing twice.
    world.feedback.collect(project.id, 1).await.unwrap();
    assert_eq!(records(&world, review_id).await.len(), 4);

    // bo takes the 👎 back and the thread is reopened.
    assert!(world.platform.unreact(&fp, "thumbsdown", "bo"));
    assert!(world.platform.resolve(&fp, None));
    let collected = world.feedback.collect(project.id, 1).await.unwrap();
    assert_eq!(collected.withdrawn, 2);
    assert_eq!(
        records(&world, review_id).await,
        [pair("accepted", Some("ana")), pair("rejected", Some("cy"))]
    );
    // One accepted, one rejected on the only comment: it counts as helping.
    assert_eq!(
        world
            .feedback
            .acceptance_rate(FeedbackScope::Review(review_id))
            .await
            .unwrap(),
        Some(1.0)
    );
}

#[tokio::test]
async fn a_platform_without_threads_or_a_failing_one_records_nothing() {
    let (world, project, _) = world().await;
    let (review_id, fp) = review(&world, &project, 1, "h1").await;
    world.platform.react(&fp, "thumbsup", "ana");
    world
        .platform
        .fail_next(Op::CommentThreads, PlatformError::Unsupported("threads"));
    assert_eq!(
        world.feedback.collect(project.id, 1).await.unwrap().threads,
        0
    );
    world.platform.fail_next(
        Op::CommentThreads,
        PlatformError::Unavailable("502 Bad Gateway".into()),
    );
    assert!(world.feedback.collect(project.id, 1).await.is_err());
    assert!(records(&world, review_id).await.is_empty());
    assert!(
        world
            .feedback
            .collect(reviewd_domain::model::ProjectId::new_v4(), 1)
            .await
            .is_err()
    );
}

#[tokio::test]
async fn the_periodic_pass_reads_recent_merge_requests_and_goes_on_past_a_failure() {
    let (world, project, _) = world().await;
    let (first, fp1) = review(&world, &project, 1, "h1").await;
    let (second, _) = review(&world, &project, 2, "h1").await;
    // Both MRs' comments share a fingerprint (same file, same words): the latest
    // posted one is MR 2's, so MR 1's thread is judged through its own MR.
    world.platform.react(&fp1, "thumbsup", "ana");
    world.platform.fail_next(
        Op::CommentThreads,
        PlatformError::Unavailable("502 Bad Gateway".into()),
    );
    let since = world.now() - chrono::TimeDelta::days(7);
    let report = world.feedback.collect_recent(since, 100).await.unwrap();
    assert_eq!((report.merge_requests, report.failed), (2, 1));
    let again = world.feedback.collect_recent(since, 100).await.unwrap();
    assert_eq!((again.merge_requests, again.failed), (2, 0));
    let judged = records(&world, first).await.len() + records(&world, second).await.len();
    assert_eq!(
        judged, 1,
        "the 👍 is recorded once, on the MR it was given on"
    );
    let later = world.now() + chrono::TimeDelta::days(1);
    let none = world.feedback.collect_recent(later, 100).await.unwrap();
    assert_eq!(none.merge_requests, 0);
}
