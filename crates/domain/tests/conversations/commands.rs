//! The commands: each does what it says, and says so once.

use super::*;
use reviewd_domain::model::conversation::{ConversationStatus, LearningSource};
use reviewd_domain::model::{MergeRequestEvent, MrAction};
use reviewd_domain::review::commands::HELP;

fn mr_updated(project: &Project, iid: i64, head: &str) -> WebhookEvent {
    WebhookEvent::MergeRequest(MergeRequestEvent {
        platform_type: PlatformType::Gitlab,
        platform_project_id: project.platform_project_id.clone(),
        iid,
        action: MrAction::Updated,
        head_sha: Some(head.into()),
        author_id: None,
    })
}

#[tokio::test]
async fn pause_stops_automatic_reviews_until_resume_and_ignore_stops_all() {
    let (world, project, on_platform) = world(r#"{"answer":"x"}"#).await;
    let say = |note: &str, body: &str| comment(&project, 2, (note, None), "ana", body);
    deliver(&world, &project, say("1", "/reviewd pause")).await;
    let paused = world.talk.controls(project.id, 2).await.unwrap();
    assert!(paused.paused);
    assert_eq!(paused.changed_by.as_deref(), Some("ana"));
    assert!(
        said_on(&world, &on_platform, 2)[0]
            .starts_with("Automatic reviews of this merge request are paused.")
    );
    let (outcome, _) = intake(&world)
        .handle(
            &[project.platform_config_id],
            None,
            mr_updated(&project, 2, "h2"),
        )
        .await
        .unwrap();
    let IntakeOutcome::Ignored(why) = outcome else {
        panic!("a paused MR got {outcome:?}");
    };
    assert!(why.contains("paused") && why.contains("ana"), "{why}");
    // Other MRs are not paused.
    let (other, _) = intake(&world)
        .handle(
            &[project.platform_config_id],
            None,
            mr_updated(&project, 1, "h1"),
        )
        .await
        .unwrap();
    assert!(matches!(other, IntakeOutcome::Queued { .. }), "{other:?}");

    // `@bot resume`, the other way to say it.
    deliver(&world, &project, say("2", "@reviewd-bot resume")).await;
    let (outcome, _) = intake(&world)
        .handle(
            &[project.platform_config_id],
            None,
            mr_updated(&project, 2, "h2"),
        )
        .await
        .unwrap();
    assert!(
        matches!(outcome, IntakeOutcome::Queued { .. }),
        "{outcome:?}"
    );

    deliver(&world, &project, say("3", "/reviewd ignore")).await;
    for event in [mr_updated(&project, 2, "h3"), say("4", "/review")] {
        let (outcome, _) = intake(&world)
            .handle(&[project.platform_config_id], None, event)
            .await
            .unwrap();
        let IntakeOutcome::Ignored(why) = outcome else {
            panic!("an ignored MR got {outcome:?}");
        };
        assert!(why.contains("ignored"), "{why}");
    }
}

#[tokio::test]
async fn remember_keeps_a_lesson_that_reaches_the_next_reviews_prompt() {
    let (world, project, on_platform) = world(r#"{"answer":"x"}"#).await;
    let body = "/reviewd remember We validate ids in the router,\nnot in handlers.";
    deliver(
        &world,
        &project,
        comment(&project, 2, ("1", None), "ana", body),
    )
    .await;
    let learnings = world.stores.learnings.learnings(project.id).await.unwrap();
    assert_eq!(learnings.len(), 1);
    assert_eq!(
        learnings[0].text,
        "We validate ids in the router,\nnot in handlers."
    );
    assert_eq!(learnings[0].source, LearningSource::Command);
    assert_eq!(learnings[0].author.as_deref(), Some("ana"));
    assert!(said_on(&world, &on_platform, 2)[0].contains("> We validate ids in the router,"));
    reviewed(&world, &project, &on_platform).await;
    let review_prompt = world
        .ai
        .requests()
        .into_iter()
        .find(|r| !is_answer(r))
        .unwrap();
    assert!(
        review_prompt
            .user
            .contains("We validate ids in the router, not in handlers."),
        "{}",
        review_prompt.user
    );
}

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
