//! Rebuttals in reviewd's threads, and replies that are not for it: a rebuttal
//! the model accepts resolves the thread, records the finding rejected and keeps
//! the lesson; a reply elsewhere is left alone.

use super::*;
use reviewd_domain::model::conversation::{ConversationStatus, LearningSource};

/// Reviews MR 1 and has ana rebut its finding in the finding's thread; the thread.
async fn rebutted(world: &World, project: &Project, on_platform: &ProjectRef) -> String {
    let thread = reviewed(world, project, on_platform).await;
    let body = "It is used: the `log!` macro below reads it.";
    let reply = world.platform.reply_in(&thread, body, "ana").unwrap();
    deliver(
        world,
        project,
        comment(project, 1, (&reply, Some(&thread)), "ana", body),
    )
    .await;
    thread
}

#[tokio::test]
async fn a_rebuttal_the_model_accepts_resolves_the_thread_and_rejects_the_finding() {
    let (world, project, on_platform) = world(
        r#"{"answer":"You're right: `b` is read by the macro below.","finding_stands":false,"lesson":"Variables read only by macros are used."}"#,
    )
    .await;
    let thread = rebutted(&world, &project, &on_platform).await;

    let on_thread = world.platform.thread(&thread).unwrap();
    assert!(on_thread.resolved.is_some(), "the thread is resolved");
    let review = world
        .stores
        .reviews
        .find_for_mr(project.id, 1)
        .await
        .unwrap()
        .unwrap();
    let records = world
        .stores
        .review_queries
        .feedbacks(review.id)
        .await
        .unwrap();
    let statuses: Vec<String> = records
        .iter()
        .map(|f| f.tracking_status.to_string())
        .collect();
    assert!(statuses.contains(&"rejected".to_owned()), "{statuses:?}");
    assert!(
        !statuses.contains(&"accepted".to_owned()),
        "reviewd's own resolution accepts nothing: {statuses:?}"
    );
    let learnings = world.stores.learnings.learnings(project.id).await.unwrap();
    assert_eq!(learnings.len(), 1);
    assert_eq!(learnings[0].source, LearningSource::Model);
    assert_eq!(learnings[0].text, "Variables read only by macros are used.");
}

#[tokio::test]
async fn a_reply_in_someone_elses_thread_or_to_someone_else_is_left_alone() {
    let (world, project, on_platform) = world(r#"{"answer":"Hi."}"#).await;
    reviewed(&world, &project, &on_platform).await;
    // A discussion reviewd did not start, and a mention of another person.
    for event in [
        comment(
            &project,
            1,
            ("900", Some("other-discussion")),
            "ana",
            "I agree",
        ),
        comment(&project, 1, ("901", None), "ana", "@bo can you look?"),
    ] {
        deliver(&world, &project, event).await;
    }
    assert!(answer_prompts(&world).is_empty());
    assert!(
        said_on(&world, &on_platform, 1)
            .iter()
            .all(|b| !b.contains("Hi."))
    );
    let recorded = conversations(&world, &project, 1).await;
    assert!(
        recorded
            .iter()
            .all(|c| c.status == ConversationStatus::Ignored),
        "{recorded:?}"
    );
    // Once an answer asked reviewd's name, a mention of someone else is not even
    // recorded (no task, no platform call).
    assert_eq!(recorded.len(), 1, "{recorded:?}");
}

#[tokio::test]
async fn a_conceded_finding_reworded_in_a_later_round_is_not_posted() {
    let (world, project, on_platform) =
        world(r#"{"answer":"You're right.","finding_stands":false}"#).await;
    rebutted(&world, &project, &on_platform).await;

    // A push changes a.rs; the model says the same thing in other words, and
    // something new about another variable.
    world.ai.answer_with(|r| {
        Ok(if is_answer(r) {
            "{}".to_owned()
        } else {
            answer(
                "Adds a.",
                &[
                    (2, "error", "The variable b is never used anywhere."),
                    (3, "warning", "c is never used"),
                ],
            )
        })
    });
    let lines = added_lines(&["let a = 1;", "let b = 2;", "let c = 3;"]);
    world.platform.put_merge_request(
        &on_platform,
        MrFixture::new(1)
            .head("h2")
            .description("Adds the numbers.")
            .file("src/a.rs", &lines),
    );
    world.platform.add_compare(
        &on_platform,
        "h1",
        "h2",
        vec![reviewd_testkit::fakes::hosting::modified(
            "src/a.rs", &lines,
        )],
    );
    let before = world.platform.inline_comments().len();
    let task = world.enqueue(&project, 1, "h2").await;
    assert!(matches!(
        world.run(&task).await,
        RunOutcome::Completed { .. }
    ));
    let posted: Vec<String> = world.platform.inline_comments()[before..]
        .iter()
        .map(|c| c.body.clone())
        .collect();
    assert_eq!(posted.len(), 1, "{posted:?}");
    assert!(posted[0].contains("c is never used"), "{posted:?}");
    let summaries: Vec<String> = world
        .platform
        .posted(&on_platform, 1)
        .into_iter()
        .filter_map(|p| match p {
            Posted::Comment { body, .. } | Posted::Edit { body, .. } => Some(body),
            _ => None,
        })
        .collect();
    assert!(
        summaries
            .last()
            .is_some_and(|s| s
                .contains("1 comment(s) left out: readers of this project rejected them before.")),
        "the summary says one was left out: {summaries:?}"
    );
}
