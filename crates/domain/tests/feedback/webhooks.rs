//! Feedback from webhooks: the threads are read rather than the payload trusted.

use super::*;

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
            note: None,
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
