//! Replies in reviewd's threads: one answer each, in the thread, with the
//! finding's code in the prompt; a rebuttal the model accepts resolves the thread,
//! records the finding rejected and keeps the lesson.

use super::*;
use reviewd_domain::model::conversation::ConversationStatus;
use reviewd_domain::review::markers::answer_marker;

#[tokio::test]
async fn a_reply_in_a_reviewd_thread_gets_exactly_one_answer_there() {
    let (world, project, on_platform) =
        world(r#"{"answer":"`b` is assigned and never read.","finding_stands":true}"#).await;
    let thread = reviewed(&world, &project, &on_platform).await;
    let reply = world
        .platform
        .reply_in(&thread, "Why is this a problem?", "ana")
        .unwrap();
    let event = || {
        comment(
            &project,
            1,
            (&reply, Some(&thread)),
            "ana",
            "Why is this a problem?",
        )
    };
    let outcome = deliver(&world, &project, event()).await;
    assert!(
        matches!(outcome, IntakeOutcome::Answering { .. }),
        "{outcome:?}"
    );

    let posted = world.platform.thread(&thread).unwrap().replies;
    let answers: Vec<_> = posted
        .iter()
        .filter(|r| r.username == "reviewd-bot")
        .collect();
    assert_eq!(answers.len(), 1, "{posted:?}");
    assert!(
        answers[0]
            .body
            .starts_with("`b` is assigned and never read.")
    );
    assert!(answers[0].body.contains(&answer_marker(&reply)));
    // The model saw the finding, its code, and the question.
    let prompts = answer_prompts(&world);
    assert_eq!(prompts.len(), 1);
    for part in [
        "b is never used",
        "let b = 2;",
        "Why is this a problem?",
        "`src/a.rs` line 2",
    ] {
        assert!(prompts[0].contains(part), "{part} not in {}", prompts[0]);
    }
    let recorded = conversations(&world, &project, 1).await;
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].status, ConversationStatus::Answered);
    assert_eq!(
        recorded[0].answer_note_id.as_deref(),
        Some(answers[0].id.as_str())
    );

    // The same webhook again (a redelivery): nothing more is said.
    let again = deliver(&world, &project, event()).await;
    assert!(matches!(again, IntakeOutcome::Ignored(_)), "{again:?}");
    assert_eq!(answer_prompts(&world).len(), 1);
    let replies = world.platform.thread(&thread).unwrap().replies;
    assert_eq!(
        replies
            .iter()
            .filter(|r| r.username == "reviewd-bot")
            .count(),
        1
    );
}

#[tokio::test]
async fn an_answer_posted_before_a_crash_is_found_and_not_posted_again() {
    let (world, project, on_platform) = world(r#"{"answer":"Second answer."}"#).await;
    let thread = reviewed(&world, &project, &on_platform).await;
    let reply = world.platform.reply_in(&thread, "why?", "ana").unwrap();
    // The attempt that died had posted its answer, marker and all, but not recorded it.
    let (outcome, _) = intake(&world)
        .handle(
            &[project.platform_config_id],
            None,
            comment(&project, 1, (&reply, Some(&thread)), "ana", "why?"),
        )
        .await
        .unwrap();
    let IntakeOutcome::Answering { task_id } = outcome else {
        panic!("{outcome:?}");
    };
    let first = world
        .platform
        .reply_in_thread(
            &on_platform,
            1,
            &thread,
            &format!("First answer.\n\n{}", answer_marker(&reply)),
        )
        .await
        .unwrap();
    world.engine.run(task_id, WORKER).await.unwrap();
    assert!(
        answer_prompts(&world).is_empty(),
        "the model is not asked again"
    );
    let recorded = &conversations(&world, &project, 1).await[0];
    assert_eq!(recorded.status, ConversationStatus::Answered);
    assert_eq!(recorded.answer_note_id.as_deref(), Some(first.as_str()));
    assert!(
        !said_on(&world, &on_platform, 1)
            .iter()
            .any(|b| b.contains("Second answer"))
    );
}
