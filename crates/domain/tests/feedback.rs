//! Feedback on reviewd's comments, on the in-memory adapters: what readers do in
//! a comment's thread becomes records (and stops being one when taken back),
//! webhooks that announce feedback have the threads read, a pushed fix
//! marks the comment implemented, and a comment rejected twice on a project is
//! not posted there again unless the project says otherwise.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reviewd_domain::model::{
    CommentEvent, FeedbackEvent, FeedbackEventKind, PlatformType, Project, ProjectSettingsChanges,
    WebhookEvent,
};
use reviewd_domain::ports::{FeedbackScope, PlatformError, ProjectRef};
use reviewd_domain::review::markers::comment_fingerprint;
use reviewd_domain::services::{FollowUp, IntakeOutcome, RunOutcome, WebhookIntake};
use reviewd_testkit::fakes::hosting::{MrFixture, Op, Posted, ProjectFixture, modified};
use reviewd_testkit::world::{World, added_lines, answer};
use uuid::Uuid;

fn mr(iid: i64, head: &str) -> MrFixture {
    MrFixture::new(iid).head(head).file(
        "src/a.rs",
        &added_lines(&["let a = 1;", "let b = 2;", "let c = 3;"]),
    )
}

/// A world whose model finds one error on line 2 of `src/a.rs`, with a project
/// holding merge requests 1 to 3.
async fn world() -> (World, Project, ProjectRef) {
    let world = World::new();
    world
        .ai
        .answer_with(|_| Ok(answer("Adds a.", &[(2, "error", "b is never used")])));
    let (project, on_platform) = world
        .project(
            ProjectFixture::new("g/app")
                .mr(mr(1, "h1"))
                .mr(mr(2, "h1"))
                .mr(mr(3, "h1")),
        )
        .await;
    (world, project, on_platform)
}

/// Reviews the MR at `head`; the review's id and the fingerprint of the line
/// comment it posted.
async fn review(world: &World, project: &Project, iid: i64, head: &str) -> (Uuid, String) {
    let task = world.enqueue(project, iid, head).await;
    let RunOutcome::Completed { review_id } = world.run(&task).await else {
        panic!("the round did not complete");
    };
    let fingerprint = world
        .platform
        .inline_comments()
        .iter()
        .rev()
        .find_map(|c| comment_fingerprint(&c.body).map(str::to_owned))
        .unwrap();
    (review_id, fingerprint)
}

/// The review's records as (status, user), sorted.
async fn records(world: &World, review_id: Uuid) -> Vec<(String, Option<String>)> {
    let mut all: Vec<_> = world
        .stores
        .review_queries
        .feedbacks(review_id)
        .await
        .unwrap()
        .into_iter()
        .map(|f| (f.tracking_status, f.username))
        .collect();
    all.sort();
    all
}

fn pair(status: &str, user: Option<&str>) -> (String, Option<String>) {
    (status.to_owned(), user.map(str::to_owned))
}

fn intake(world: &World) -> WebhookIntake {
    WebhookIntake::new(
        world.stores.projects.clone(),
        world.stores.settings.clone(),
        world.tasks.clone(),
        world.queue.clone(),
    )
    .with_feedback(world.feedback.clone())
}

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
    assert!(world.feedback.collect(Uuid::new_v4(), 1).await.is_err());
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

#[tokio::test]
async fn webhook_feedback_has_the_threads_read_rather_than_trusting_the_payload() {
    let (world, project, _) = world().await;
    let (review_id, fp) = review(&world, &project, 1, "h1").await;
    let marked = format!(
        "**error**: b is never used\n\n{}",
        reviewd_domain::review::markers::comment_marker(&fp)
    );
    let event = |body: &str, kind| {
        WebhookEvent::Feedback(FeedbackEvent {
            platform_type: PlatformType::Gitlab,
            platform_project_id: project.platform_project_id.clone(),
            iid: 1,
            comment_body: body.to_owned(),
            kind,
        })
    };
    let reaction = || FeedbackEventKind::Reaction {
        name: "thumbsup".into(),
        username: "ana".into(),
        withdrawn: false,
    };
    let intake = intake(&world);
    let calls = world.platform.calls().len();
    let configs = [project.platform_config_id];
    // A 👍 on a comment carrying reviewd's marker: the MR's threads are read
    // after the answer (the payload's text could be anyone's copy of the marker).
    let (outcome, follow_up) = intake
        .handle(&configs, None, event(&marked, reaction()))
        .await
        .unwrap();
    assert!(matches!(outcome, IntakeOutcome::Ignored(_)), "{outcome:?}");
    assert_eq!(follow_up.read_feedback, Some((project.id, 1)));
    assert!(
        records(&world, review_id).await.is_empty(),
        "nothing is recorded from the payload"
    );
    let resolved = FeedbackEventKind::Resolution {
        username: Some("bo".into()),
        resolved: true,
    };
    let (_, follow_up) = intake
        .handle(&configs, None, event(&marked, resolved))
        .await
        .unwrap();
    assert_eq!(follow_up.read_feedback, Some((project.id, 1)));
    assert_eq!(
        world.platform.calls().len(),
        calls,
        "no platform call on the request"
    );

    // A reaction on someone else's comment, or a project of another config: nothing.
    for (configs, event) in [
        (configs.to_vec(), event("I think this is fine", reaction())),
        (vec![Uuid::new_v4()], event(&marked, reaction())),
    ] {
        let (outcome, follow_up) = intake.handle(&configs, None, event).await.unwrap();
        assert!(matches!(outcome, IntakeOutcome::Ignored(_)));
        assert_eq!(follow_up, FollowUp::default());
    }
}

#[tokio::test]
async fn a_reply_in_a_thread_has_the_threads_read_after_the_answer() {
    let (world, project, _) = world().await;
    let intake = intake(&world);
    let comment = |body: &str, in_thread| {
        WebhookEvent::Comment(CommentEvent {
            platform_type: PlatformType::Gitlab,
            platform_project_id: project.platform_project_id.clone(),
            iid: 2,
            body: body.into(),
            head_sha: None,
            in_thread,
            may_command: true,
        })
    };
    let configs = [project.platform_config_id];
    let (_, follow_up) = intake
        .handle(&configs, None, comment("won't fix", true))
        .await
        .unwrap();
    assert_eq!(follow_up.read_feedback, Some((project.id, 2)));
    let own = format!(
        "**error**: x\n\n{}",
        reviewd_domain::review::markers::comment_marker("00ff")
    );
    for event in [comment("won't fix", false), comment(&own, true)] {
        let (outcome, follow_up) = intake.handle(&configs, None, event).await.unwrap();
        assert!(matches!(outcome, IntakeOutcome::Ignored(_)));
        assert_eq!(follow_up, FollowUp::default());
    }
    // An outsider's "/review" in a thread is read as feedback, not obeyed.
    let mut outsider = comment("/review", true);
    if let WebhookEvent::Comment(c) = &mut outsider {
        c.may_command = false;
    }
    let (outcome, follow_up) = intake.handle(&configs, None, outsider).await.unwrap();
    assert!(matches!(outcome, IntakeOutcome::Ignored(_)), "{outcome:?}");
    assert_eq!(follow_up.read_feedback, Some((project.id, 2)));
    // A command in a thread is a command.
    let (outcome, follow_up) = intake
        .handle(&configs, None, comment("/review", true))
        .await
        .unwrap();
    assert!(
        matches!(outcome, IntakeOutcome::Queued { .. }),
        "{outcome:?}"
    );
    assert_eq!(follow_up.read_feedback, None);
}

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
