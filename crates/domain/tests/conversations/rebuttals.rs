//! Rebuttals in reviewd's threads, and replies that are not for it: a rebuttal
//! the model accepts resolves the thread, records the finding rejected and keeps
//! the lesson; a reply elsewhere is left alone.

use super::*;
use reviewd_domain::model::conversation::{ConversationStatus, LearningSource};

#[tokio::test]
async fn a_rebuttal_the_model_accepts_resolves_the_thread_and_rejects_the_finding() {
    let (world, project, on_platform) = world(
        r#"{"answer":"You're right: `b` is read by the macro below.","finding_stands":false,"lesson":"Variables read only by macros are used."}"#,
    )
    .await;
    let thread = reviewed(&world, &project, &on_platform).await;
    let body = "It is used: the `log!` macro below reads it.";
    let reply = world.platform.reply_in(&thread, body, "ana").unwrap();
    deliver(
        &world,
        &project,
        comment(&project, 1, (&reply, Some(&thread)), "ana", body),
    )
    .await;

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
}
