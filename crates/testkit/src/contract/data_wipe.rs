//! The `DataWipe` contract, for the database ([`run`]: every row gone but the caller's
//! account and the credential they came with, the migrations' default rows back) and
//! for the queue ([`queue`]: every message and delivery id gone). Either way the store
//! works on at once.

use super::{Stores, assert_not_found, seed};
use chrono::{DateTime, TimeDelta, Utc};
use reviewd_domain::model::User;
use reviewd_domain::model::notification::NotificationConfig;
use reviewd_domain::ports::{DataWipe, DeliveryLog, ResetCaller, TaskQueue};
use std::time::Duration;
use uuid::Uuid;

pub async fn run(s: &Stores) {
    assert_eq!(s.wipe.store(), "database");
    everything_but_the_callers_session_is_gone(s).await;
    a_caller_with_a_key_keeps_the_key(s).await;
}

fn in_an_hour() -> DateTime<Utc> {
    seed::now() + TimeDelta::hours(1)
}

/// Someone else: a user with a session and a key, which the wipe takes.
async fn someone_else(s: &Stores) -> (User, String, String) {
    let user = seed::user(s).await;
    let (_, token) = seed::session(s, user.id, in_an_hour()).await;
    let key = seed::new_api_key(user.id, None);
    s.api_keys.create(key.clone()).await.unwrap();
    (user, token, key.key_hash)
}

async fn only_the_caller_is_left(s: &Stores, caller: &User, gone: &User) {
    let users = s.users.list(reviewd_domain::PageRequest::new(1, 10, 100));
    assert_eq!(users.await.unwrap().items, std::slice::from_ref(caller));
    assert_not_found(s.users.get(gone.id).await);
}

async fn everything_but_the_callers_session_is_gone(s: &Stores) {
    let fresh_settings = s.settings.global().await.unwrap();
    let fresh_notifications = s.notifications.config().await.unwrap();
    let caller = s.users.create(seed::new_user(true)).await.unwrap();
    let (session, token) = seed::session(s, caller.id, in_an_hour()).await;
    let (_, other_token) = seed::session(s, caller.id, in_an_hour()).await;
    let own_key = seed::new_api_key(caller.id, None);
    s.api_keys.create(own_key.clone()).await.unwrap();
    let (bob, bob_token, bob_key) = someone_else(s).await;
    let project = seed::project(s).await;
    let ai_config = s
        .ai_configs
        .create(seed::new_ai_config(true))
        .await
        .unwrap();
    s.projects
        .update_settings(
            project.id,
            reviewd_domain::model::ProjectSettingsChanges {
                ai_config_id: Some(Some(ai_config.id)),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let task = seed::task(s, &project, 1, "abc123").await;
    let review = seed::review(s, &project, 1, "abc123").await;
    seed::runner(s, 1, &[]).await;
    s.notifications
        .save_config(&NotificationConfig {
            webhook_enabled: true,
            webhook_urls: vec!["https://hooks.example.com/reviewd".into()],
            ..fresh_notifications.clone()
        })
        .await
        .unwrap();

    let caller_session = ResetCaller {
        user_id: caller.id,
        session_id: Some(session.id),
        api_key_id: None,
    };
    assert!(s.wipe.wipe(&caller_session).await.unwrap() > 0);

    only_the_caller_is_left(s, &caller, &bob).await;
    assert!(s.users.root_exists().await.unwrap(), "the caller was root");
    let now = Utc::now();
    let active = s.sessions.find_active(&token, now).await.unwrap();
    assert_eq!(active, Some((session, caller.clone())));
    for gone in [&other_token, &bob_token] {
        assert_eq!(s.sessions.find_active(gone, now).await.unwrap(), None);
    }
    for gone in [&own_key.key_hash, &bob_key] {
        assert_eq!(s.api_keys.find_active(gone, now).await.unwrap(), None);
    }
    assert!(
        s.platform_configs
            .list(None, false)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(s.projects.list_all().await.unwrap().is_empty());
    assert!(s.ai_configs.list().await.unwrap().is_empty());
    assert_eq!(s.ai_configs.default_config().await.unwrap(), None);
    assert_not_found(s.tasks.get(task.id).await);
    assert_not_found(s.reviews.get(review.id).await);
    assert!(s.runners.list().await.unwrap().is_empty());
    assert_eq!(s.settings.global().await.unwrap(), fresh_settings);
    let notifications = s.notifications.config().await.unwrap();
    assert_eq!(
        NotificationConfig {
            updated_at: fresh_notifications.updated_at,
            ..notifications
        },
        fresh_notifications,
        "the default row, made again"
    );

    let again = seed::project(s).await;
    assert_eq!(
        s.projects.list_all().await.unwrap(),
        [again],
        "usable at once"
    );
}

async fn a_caller_with_a_key_keeps_the_key(s: &Stores) {
    let caller = seed::user(s).await;
    let (_, token) = seed::session(s, caller.id, in_an_hour()).await;
    let new_key = seed::new_api_key(caller.id, None);
    let key = s.api_keys.create(new_key.clone()).await.unwrap();
    let (bob, ..) = someone_else(s).await;

    let caller_key = ResetCaller {
        user_id: caller.id,
        session_id: None,
        api_key_id: Some(key.id),
    };
    s.wipe.wipe(&caller_key).await.unwrap();

    only_the_caller_is_left(s, &caller, &bob).await;
    let now = Utc::now();
    let active = s
        .api_keys
        .find_active(&new_key.key_hash, now)
        .await
        .unwrap();
    assert_eq!(active, Some((key, caller)));
    assert_eq!(s.sessions.find_active(&token, now).await.unwrap(), None);
}

/// The queue store's wipe: messages (delivered or not) and remembered delivery ids
/// are gone, and the queue takes and delivers new messages at once.
pub async fn queue(wipe: &dyn DataWipe, queue: &dyn TaskQueue, log: &dyn DeliveryLog) {
    const BLOCK: Duration = Duration::from_millis(50);
    assert_eq!(wipe.store(), "queue");
    queue.push(Uuid::new_v4()).await.unwrap();
    let delivered = queue.pull("worker-1", 1, BLOCK).await.unwrap();
    assert_eq!(delivered.len(), 1);
    queue.push(Uuid::new_v4()).await.unwrap();
    let delivery_id = format!("delivery-{}", seed::unique());
    assert!(log.first_seen("hostA", &delivery_id).await.unwrap());

    let nobody = ResetCaller {
        user_id: Uuid::new_v4(),
        session_id: None,
        api_key_id: None,
    };
    assert!(wipe.wipe(&nobody).await.unwrap() > 0);

    assert_eq!(queue.depth().await.unwrap(), 0);
    let idle = queue.reclaim("worker-2", Duration::ZERO, 10).await.unwrap();
    assert!(idle.is_empty(), "nothing pending is left: {idle:?}");
    assert!(
        log.first_seen("hostA", &delivery_id).await.unwrap(),
        "forgotten"
    );

    let task = Uuid::new_v4();
    queue.push(task).await.unwrap();
    let pulled = queue.pull("worker-1", 10, BLOCK).await.unwrap();
    assert_eq!(pulled.iter().map(|d| d.task_id).collect::<Vec<_>>(), [task]);
    queue.ack(&pulled[0].id).await.unwrap();
    assert_eq!(queue.depth().await.unwrap(), 0);
}
