//! What is queued: an opened MR once however often delivered, nothing for events that ask for no
//! review, a review command.

use super::*;

#[tokio::test]
async fn an_opened_mr_is_queued_once_however_often_it_is_delivered() {
    let (world, project) = setup().await;
    let intake = intake(&world);
    let configs = [project.platform_config_id];
    let delivery = Some(DeliveryRef {
        platform: PlatformType::Gitlab,
        id: "delivery-1",
    });

    let (first, _) = intake
        .handle(&configs, delivery, opened(&project, 1, "h1"))
        .await
        .unwrap();
    let IntakeOutcome::Queued { task_id } = first else {
        panic!("not queued: {first:?}");
    };
    let (again, _) = intake
        .handle(&configs, delivery, opened(&project, 1, "h1"))
        .await
        .unwrap();
    assert!(matches!(again, IntakeOutcome::Ignored(ref why) if why.contains("duplicate")));
    let (repeat, _) = intake
        .handle(
            &configs,
            Some(DeliveryRef {
                platform: PlatformType::Gitlab,
                id: "delivery-2",
            }),
            opened(&project, 1, "h1"),
        )
        .await
        .unwrap();
    assert_eq!(
        repeat,
        IntakeOutcome::AlreadyQueued { task_id },
        "same head, one task"
    );
    assert_eq!(world.queue.queued_tasks(), vec![task_id]);
    assert_eq!(world.queue.depth().await.unwrap(), 1);
}

#[tokio::test]
async fn events_that_do_not_ask_for_a_review_queue_nothing() {
    let (world, project) = setup().await;
    let intake = intake(&world);
    let configs = [project.platform_config_id];
    let closed = WebhookEvent::MergeRequest(MergeRequestEvent {
        action: MrAction::Other("close".into()),
        ..match opened(&project, 1, "h1") {
            WebhookEvent::MergeRequest(mr) => mr,
            _ => unreachable!(),
        }
    });
    let chatter = WebhookEvent::Comment(CommentEvent {
        platform_type: PlatformType::Gitlab,
        platform_project_id: project.platform_project_id.clone(),
        iid: 1,
        body: "looks fine to me".into(),
        head_sha: Some("h1".into()),
        in_thread: false,
        may_command: true,
        note: None,
    });
    let elsewhere = opened(&project, 1, "h1");
    for (configs, event) in [
        (&configs[..], closed),
        (&configs[..], chatter),
        (&[][..], elsewhere),
    ] {
        let (outcome, _) = intake.handle(configs, None, event).await.unwrap();
        assert!(matches!(outcome, IntakeOutcome::Ignored(_)), "{outcome:?}");
    }
    world
        .stores
        .projects
        .update_settings(
            project.id,
            ProjectSettingsChanges {
                enabled: Some(false),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let (outcome, _) = intake
        .handle(&configs, None, opened(&project, 1, "h1"))
        .await
        .unwrap();
    assert!(matches!(outcome, IntakeOutcome::Ignored(ref why) if why.contains("disabled")));
    assert!(world.queue.queued_tasks().is_empty());
}

#[tokio::test]
async fn a_review_command_in_a_comment_queues_a_review() {
    let (world, project) = setup().await;
    let intake = intake(&world);
    let (outcome, _) = intake
        .handle(
            &[project.platform_config_id],
            None,
            WebhookEvent::Comment(CommentEvent {
                platform_type: PlatformType::Gitlab,
                platform_project_id: project.platform_project_id.clone(),
                iid: 1,
                body: "/review please".into(),
                head_sha: Some("h1".into()),
                in_thread: false,
                may_command: true,
                note: None,
            }),
        )
        .await
        .unwrap();
    assert!(
        matches!(outcome, IntakeOutcome::Queued { .. }),
        "{outcome:?}"
    );
}
