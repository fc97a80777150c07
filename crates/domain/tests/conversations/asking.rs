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
            .starts_with("A full review of this merge request (every file again) is queued.")
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

#[tokio::test]
async fn review_full_reviews_every_file_again_after_a_new_commit() {
    let world = World::new();
    world.ai.answer_with(|r| {
        Ok(if is_answer(r) {
            "{}".to_owned()
        } else {
            answer("Adds a.", &[(2, "warning", "name b better")])
        })
    });
    let lines = added_lines(&["let a = 1;", "let b = 2;", "let c = 3;"]);
    let mr = |head: &str| {
        MrFixture::new(1)
            .head(head)
            .file("a.rs", &lines)
            .file("b.rs", &lines)
    };
    let (project, on_platform) = world
        .project(ProjectFixture::new("g/app").mr(mr("h1")))
        .await;
    world.platform.grant("ana", Standing::Developer);
    let first = world.enqueue(&project, 1, "h1").await;
    assert!(matches!(
        world.run(&first).await,
        RunOutcome::Completed { .. }
    ));
    // A push touches b.rs only: a plain `review` of h2 would send b.rs alone.
    world.platform.put_merge_request(&on_platform, mr("h2"));
    world.platform.add_compare(
        &on_platform,
        "h1",
        "h2",
        vec![reviewd_testkit::fakes::hosting::modified("b.rs", &lines)],
    );
    let before = world.ai.requests().len();

    deliver(
        &world,
        &project,
        comment(&project, 1, ("7", None), "ana", "@reviewd-bot review full"),
    )
    .await;
    assert!(
        said_on(&world, &on_platform, 1)
            .last()
            .unwrap()
            .starts_with("A full review of this merge request (every file again) is queued.")
    );
    let queued: Vec<_> = world.queue.queued_tasks();
    let mut full = None;
    for id in queued {
        let task = world.stores.tasks.get(id).await.unwrap();
        if task.conversation_id.is_none() && task.mr_iid == 1 && task.full_review {
            full = Some(task);
        }
    }
    let full = full.expect("a full review task was queued");
    assert_eq!(full.head_sha.as_deref(), Some("h2"));
    let RunOutcome::Completed { review_id } = world.run(&full).await else {
        panic!("the full review did not complete");
    };
    let mut sent: Vec<String> = world.ai.requests()[before..]
        .iter()
        .filter(|r| !is_answer(r) && !is_summary(r))
        .map(prompt_file)
        .collect();
    sent.sort();
    assert_eq!(sent, ["a.rs", "b.rs"], "every file, not only b.rs");
    let rounds = world.stores.review_queries.rounds(review_id).await.unwrap();
    assert_eq!(rounds.len(), 2);
    assert!(rounds.iter().all(|r| !r.is_differential));
}
