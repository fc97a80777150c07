//! Who may talk to reviewd: outsiders are refused once per MR (or met with
//! silence, by the project's setting), bots and reviewd itself never answered.

use super::*;
use reviewd_domain::model::conversation::ConversationStatus;
use reviewd_domain::review::standing::REFUSAL;

#[tokio::test]
async fn outsiders_are_refused_once_per_mr_and_bots_are_never_answered() {
    let (world, project, on_platform) = world(r#"{"answer":"x"}"#).await;
    for (note, author) in [
        ("1", "mallory"),
        ("2", "eve"),
        ("3", "dependabot[bot]"),
        ("4", "reviewd-bot"),
    ] {
        deliver(
            &world,
            &project,
            comment(&project, 2, (note, None), author, "/reviewd ignore"),
        )
        .await;
    }
    let said = said_on(&world, &on_platform, 2);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].starts_with(REFUSAL));
    let asked_name = world
        .platform
        .calls()
        .into_iter()
        .filter(|op| *op == reviewd_testkit::fakes::hosting::Op::TokenIdentity)
        .count();
    assert_eq!(
        asked_name, 1,
        "reviewd's own name is asked once, not per comment"
    );
    let controls = world.talk.controls(project.id, 2).await.unwrap();
    assert!(!controls.ignored, "no outsider's command ran");
    let statuses: Vec<_> = conversations(&world, &project, 2)
        .await
        .iter()
        .map(|c| c.status)
        .collect();
    assert_eq!(
        statuses,
        [
            ConversationStatus::Refused,
            ConversationStatus::Ignored,
            ConversationStatus::Ignored,
            ConversationStatus::Ignored
        ]
    );
    // A reader (GitLab reporter) is no developer either, and the MR had its refusal.
    world.platform.grant("rita", Standing::Reader);
    deliver(
        &world,
        &project,
        comment(&project, 2, ("5", None), "rita", "/reviewd pause"),
    )
    .await;
    assert_eq!(said_on(&world, &on_platform, 2).len(), 1);
    assert!(!world.talk.controls(project.id, 2).await.unwrap().paused);
}

#[tokio::test]
async fn a_project_that_chose_silence_says_nothing_to_outsiders() {
    let (world, project, on_platform) = world(r#"{"answer":"x"}"#).await;
    world
        .stores
        .projects
        .update_settings(
            project.id,
            reviewd_domain::model::ProjectSettingsChanges {
                refuse_outsiders: Some(false),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    deliver(
        &world,
        &project,
        comment(&project, 2, ("1", None), "mallory", "/reviewd pause"),
    )
    .await;
    assert!(
        said_on(&world, &on_platform, 2).is_empty(),
        "no refusal posted"
    );
    assert!(!world.talk.controls(project.id, 2).await.unwrap().paused);
    let recorded = conversations(&world, &project, 2).await;
    assert_eq!(recorded[0].status, ConversationStatus::Ignored);
    // The project's developers are still answered.
    deliver(
        &world,
        &project,
        comment(&project, 2, ("2", None), "ana", "/reviewd pause"),
    )
    .await;
    assert!(world.talk.controls(project.id, 2).await.unwrap().paused);
}
