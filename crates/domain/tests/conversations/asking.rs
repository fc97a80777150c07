//! The commands that answer: help (and unknown words), review, ask, describe.

use super::*;
use reviewd_domain::model::conversation::ConversationStatus;
use reviewd_domain::review::commands::HELP;

#[tokio::test]
async fn help_and_unknown_words_get_the_help_and_review_queues_one() {
    let (world, project, on_platform) = world(r#"{"answer":"x"}"#).await;
    deliver(
        &world,
        &project,
        comment(&project, 2, ("1", None), "ana", "/reviewd help"),
    )
    .await;
    deliver(
        &world,
        &project,
        comment(&project, 2, ("2", None), "ana", "@reviewd-bot dance"),
    )
    .await;
    let said = said_on(&world, &on_platform, 2);
    assert!(said[0].starts_with(HELP), "{}", said[0]);
    assert!(said[1].starts_with("I don't know `dance`."), "{}", said[1]);
    assert!(said[1].contains(HELP));

    deliver(
        &world,
        &project,
        comment(&project, 2, ("3", None), "ana", "@reviewd-bot review full"),
    )
    .await;
    assert!(
        said_on(&world, &on_platform, 2)[2]
            .starts_with("A review of this merge request is queued.")
    );
    let mut reviews = 0;
    for id in world.queue.queued_tasks() {
        let task = world.stores.tasks.get(id).await.unwrap();
        reviews += usize::from(task.conversation_id.is_none() && task.mr_iid == 2);
    }
    assert_eq!(reviews, 1, "a review task was queued");
}

#[tokio::test]
async fn ask_answers_with_the_merge_requests_code() {
    let (world, project, on_platform) = world(r#"{"answer":"It adds three numbers."}"#).await;
    let body = "/reviewd ask what does this change do?";
    deliver(
        &world,
        &project,
        comment(&project, 1, ("1", None), "ana", body),
    )
    .await;
    let prompts = answer_prompts(&world);
    assert_eq!(prompts.len(), 1);
    for part in [
        "let b = 2;",
        "what does this change do?",
        "Adds the numbers.",
    ] {
        assert!(prompts[0].contains(part), "{part} not in {}", prompts[0]);
    }
    let said = said_on(&world, &on_platform, 1);
    assert!(said.last().unwrap().starts_with("It adds three numbers."));
    let recorded = conversations(&world, &project, 1).await;
    assert_eq!(recorded[0].command.as_deref(), Some("ask"));
    assert_eq!(recorded[0].status, ConversationStatus::Answered);
}

#[tokio::test]
async fn describe_writes_its_section_and_keeps_the_authors_text() {
    let (world, project, on_platform) = world(r#"{"answer":"Adds three numbers."}"#).await;
    deliver(
        &world,
        &project,
        comment(&project, 1, ("1", None), "ana", "/reviewd describe"),
    )
    .await;
    let mr = world
        .platform
        .get_merge_request(&on_platform, 1)
        .await
        .unwrap();
    let description = mr.description.unwrap();
    assert!(
        description.starts_with("Adds the numbers.\n\n"),
        "{description}"
    );
    assert!(description.contains("Adds three numbers."));
    assert!(description.contains("| `src/a.rs` | "), "{description}");
    // Asked again after the author edited their part: one section, their edit kept.
    world
        .platform
        .set_description(
            &on_platform,
            1,
            &description.replace("Adds the numbers.", "Adds numbers, fast."),
        )
        .await
        .unwrap();
    deliver(
        &world,
        &project,
        comment(&project, 1, ("2", None), "ana", "/reviewd describe"),
    )
    .await;
    let again = world
        .platform
        .get_merge_request(&on_platform, 1)
        .await
        .unwrap()
        .description
        .unwrap();
    assert!(again.starts_with("Adds numbers, fast.\n\n"), "{again}");
    assert_eq!(again.matches("## Walkthrough").count(), 1, "{again}");
}
