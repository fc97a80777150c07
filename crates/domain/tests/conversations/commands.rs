//! The commands: each does what it says, and says so once.

use super::*;
use reviewd_domain::model::conversation::LearningSource;
use reviewd_domain::model::{MergeRequestEvent, MrAction};

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
    let (outcome, _) = intake(&world)
        .handle(
            &[project.platform_config_id],
            None,
            mr_updated(&project, 2, "h3"),
        )
        .await
        .unwrap();
    let IntakeOutcome::Ignored(why) = outcome else {
        panic!("an ignored MR got {outcome:?}");
    };
    assert!(why.contains("ignored"), "{why}");
    // Someone who asks for a review of it is told why there is none.
    let tasks_before = world.queue.queued_tasks().len();
    let asked = deliver(&world, &project, say("4", "/review")).await;
    assert!(
        matches!(asked, IntakeOutcome::Answering { .. }),
        "{asked:?}"
    );
    let said = said_on(&world, &on_platform, 2);
    assert!(
        said.last()
            .unwrap()
            .starts_with("This merge request is ignored (`/reviewd ignore`)"),
        "{said:?}"
    );
    let reviews: usize = {
        let mut n = 0;
        for id in world.queue.queued_tasks().into_iter().skip(tasks_before) {
            let task = world.stores.tasks.get(id).await.unwrap();
            n += usize::from(task.conversation_id.is_none());
        }
        n
    };
    assert_eq!(reviews, 0, "no review was queued");
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
