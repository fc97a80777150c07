//! Monthly budgets on the in-memory adapters: a spent budget stops automatic
//! reviews (with one note per MR and one notification per month) and not manual
//! ones, and the next month starts afresh.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reviewd_domain::model::notification::{Channel, NotificationConfig, NotificationType};
use reviewd_domain::model::{
    CommentEvent, MergeRequestEvent, MrAction, PlatformType, Project, ProjectSettingsChanges,
    WebhookEvent,
};
use reviewd_domain::ports::ProjectRef;
use reviewd_domain::services::{Budgets, FollowUp, IntakeOutcome, WebhookIntake};
use reviewd_testkit::contract::seed;
use reviewd_testkit::fakes::hosting::{MrFixture, Posted, ProjectFixture};
use reviewd_testkit::fakes::notifier::RecordingNotifier;
use reviewd_testkit::world::World;
use std::sync::Arc;
use std::time::Duration;

struct Bench {
    world: World,
    project: Project,
    on_platform: ProjectRef,
    intake: WebhookIntake,
    budgets: Arc<Budgets>,
    chat: Arc<RecordingNotifier>,
}

async fn bench(budget: Option<f64>) -> Bench {
    let world = World::new();
    let (project, on_platform) = world
        .project(
            ProjectFixture::new("g/app")
                .mr(MrFixture::new(1))
                .mr(MrFixture::new(2)),
        )
        .await;
    let chat = Arc::new(RecordingNotifier::new(Channel::Discord));
    let notifications = Arc::new(reviewd_testkit::world::notification_service(
        &world,
        vec![chat.clone()],
        world.clock.clone(),
    ));
    world
        .stores
        .notifications
        .save_config(&NotificationConfig {
            discord_enabled: true,
            discord_webhook_url: Some(reviewd_domain::model::SecretString::new(
                "https://chat.example.com/x",
            )),
            ..NotificationConfig::default()
        })
        .await
        .unwrap();
    let budgets = Arc::new(
        Budgets::new(
            world.stores.projects.clone(),
            world.projects.clone(),
            world.clock.clone(),
        )
        .notifying(notifications),
    );
    let intake = WebhookIntake::new(
        world.stores.projects.clone(),
        world.stores.settings.clone(),
        world.tasks.clone(),
        world.queue.clone(),
    )
    .with_budgets(budgets.clone());
    let project = set(&world, &project, budget_change(budget)).await;
    Bench {
        world,
        project,
        on_platform,
        intake,
        budgets,
        chat,
    }
}

fn budget_change(budget: Option<f64>) -> ProjectSettingsChanges {
    ProjectSettingsChanges {
        monthly_budget_usd: Some(budget),
        ..ProjectSettingsChanges::default()
    }
}

async fn set(world: &World, project: &Project, changes: ProjectSettingsChanges) -> Project {
    world
        .projects
        .update_settings(project.id, changes)
        .await
        .unwrap()
}

/// Logs AI calls of the project costing `usd` now.
async fn spend(b: &Bench, usd: f64) {
    let review = seed::review(&b.world.stores, &b.project, 99, "h0").await;
    b.world
        .stores
        .reviews
        .log_ai_call(seed::ai_call(Some(review.id), "m-1", Some(usd)))
        .await
        .unwrap();
}

fn pushed(project: &Project, iid: i64, head: &str) -> WebhookEvent {
    WebhookEvent::MergeRequest(MergeRequestEvent {
        platform_type: PlatformType::Gitlab,
        platform_project_id: project.platform_project_id.clone(),
        iid,
        action: MrAction::Updated,
        head_sha: Some(head.into()),
        author_id: None,
    })
}

fn command(project: &Project, iid: i64) -> WebhookEvent {
    WebhookEvent::Comment(CommentEvent {
        platform_type: PlatformType::Gitlab,
        platform_project_id: project.platform_project_id.clone(),
        iid,
        body: "/review".into(),
        head_sha: Some("h9".into()),
        in_thread: false,
        may_command: true,
        note: None,
    })
}

/// Handles the event and does its follow-up, as the webhook handler does.
async fn deliver(b: &Bench, event: WebhookEvent) -> IntakeOutcome {
    let (outcome, FollowUp { budget_stop, .. }) = b
        .intake
        .handle(&[b.project.platform_config_id], None, event)
        .await
        .unwrap();
    if let Some(stop) = budget_stop {
        b.budgets.announce(&stop).await;
    }
    outcome
}

fn notes(b: &Bench, iid: i64) -> Vec<String> {
    b.world
        .platform
        .posted(&b.on_platform, iid)
        .into_iter()
        .filter_map(|p| match p {
            Posted::Comment { body, .. } => Some(body),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_spent_budget_stops_automatic_reviews_with_one_note_per_mr_and_one_notification() {
    let b = bench(Some(1.0)).await;
    spend(&b, 0.75).await;
    let under = deliver(&b, pushed(&b.project, 1, "h1")).await;
    assert!(
        matches!(under, IntakeOutcome::Queued { .. }),
        "under budget: {under:?}"
    );

    spend(&b, 0.25).await;
    let stopped = deliver(&b, pushed(&b.project, 1, "h2")).await;
    let IntakeOutcome::Ignored(why) = &stopped else {
        panic!("queued past the budget: {stopped:?}");
    };
    assert!(
        why.contains("$1.00 of $1.00 in 2026-01") && why.contains("2026-02-01"),
        "{why}"
    );
    assert_eq!(b.world.queue.queued_tasks().len(), 1, "nothing more queued");

    // A second push to the same MR, and a push to another MR.
    deliver(&b, pushed(&b.project, 1, "h3")).await;
    deliver(&b, pushed(&b.project, 2, "h1")).await;
    let on_first = notes(&b, 1);
    assert_eq!(on_first.len(), 1, "one note per MR: {on_first:?}");
    assert!(
        on_first[0].contains("monthly AI budget is spent ($1.00 of $1.00 in 2026-01)")
            && on_first[0].contains("resume on 2026-02-01")
            && on_first[0].contains("comment `/review`"),
        "{}",
        on_first[0]
    );
    assert_eq!(notes(&b, 2).len(), 1);

    let sent = b.chat.sent();
    assert_eq!(sent.len(), 1, "one notification a month: {sent:?}");
    let (_, notification) = &sent[0];
    assert_eq!(notification.kind, NotificationType::ReviewFailed);
    assert!(
        notification.title.contains("AI budget spent: app") && notification.review.is_none(),
        "{notification:?}"
    );
    assert!(
        notification.text.contains("First stopped: !1"),
        "{}",
        notification.text
    );
}

#[tokio::test]
async fn a_review_command_still_runs_past_the_budget() {
    let b = bench(Some(0.5)).await;
    spend(&b, 2.0).await;
    let manual = deliver(&b, command(&b.project, 1)).await;
    assert!(matches!(manual, IntakeOutcome::Queued { .. }), "{manual:?}");
    assert!(
        notes(&b, 1).is_empty(),
        "a manual trigger gets no budget note"
    );
    assert!(b.chat.sent().is_empty());
}

#[tokio::test]
async fn the_next_month_or_a_raised_or_removed_budget_reviews_again() {
    let b = bench(Some(1.0)).await;
    spend(&b, 1.5).await;
    assert!(matches!(
        deliver(&b, pushed(&b.project, 1, "h1")).await,
        IntakeOutcome::Ignored(_)
    ));

    let raised = set(&b.world, &b.project, budget_change(Some(2.0))).await;
    assert!(matches!(
        deliver(&b, pushed(&raised, 1, "h2")).await,
        IntakeOutcome::Queued { .. }
    ));
    spend(&b, 1.0).await;
    assert!(matches!(
        deliver(&b, pushed(&raised, 1, "h3")).await,
        IntakeOutcome::Ignored(_)
    ));
    let removed = set(&b.world, &b.project, budget_change(None)).await;
    assert!(matches!(
        deliver(&b, pushed(&removed, 1, "h4")).await,
        IntakeOutcome::Queued { .. }
    ));

    // February: January's spending no longer counts; a new stop is announced anew.
    set(&b.world, &b.project, budget_change(Some(1.0))).await;
    b.world.clock.advance(Duration::from_secs(31 * 24 * 3600));
    assert!(matches!(
        deliver(&b, pushed(&b.project, 1, "h5")).await,
        IntakeOutcome::Queued { .. }
    ));
    spend(&b, 1.0).await;
    let stopped = deliver(&b, pushed(&b.project, 1, "h6")).await;
    assert!(
        matches!(&stopped, IntakeOutcome::Ignored(why) if why.contains("2026-02")),
        "{stopped:?}"
    );
    assert_eq!(notes(&b, 1).len(), 2, "January's note and February's");
    assert_eq!(b.chat.sent().len(), 2);
}

#[tokio::test]
async fn a_project_that_does_not_post_to_its_platform_gets_no_note() {
    let b = bench(Some(0.0)).await;
    let mut global = b.world.stores.settings.global().await.unwrap();
    global.send_to_platform = false;
    b.world.store.set_global_settings(global);
    assert!(matches!(
        deliver(&b, pushed(&b.project, 1, "h1")).await,
        IntakeOutcome::Ignored(_)
    ));
    assert!(notes(&b, 1).is_empty());
    assert_eq!(b.chat.sent().len(), 1, "the team is still told");
}

#[tokio::test]
async fn budgets_out_of_range_are_refused() {
    let b = bench(None).await;
    for bad in [-0.01, f64::NAN, f64::INFINITY, 1e12] {
        let refused = b
            .world
            .projects
            .update_settings(b.project.id, budget_change(Some(bad)))
            .await;
        assert!(refused.is_err(), "{bad} was accepted");
    }
    let kept = b.world.projects.get(b.project.id).await.unwrap();
    assert_eq!(kept.monthly_budget_usd, None);
}
