//! Browser push subscriptions, on users the store knows.

use super::{far_ahead, long_ago};
use reviewd_domain::model::notification::{NewPushSubscription, PushSubscription};
use reviewd_domain::ports::{NotificationRepository, RepoError};
use uuid::Uuid;

/// Push subscriptions, for two users the store knows (the subscriptions' owners).
pub(super) async fn push_subscriptions(n: &dyn NotificationRepository, [alice, bob]: [Uuid; 2]) {
    let base = format!("https://push.example.com/{}", Uuid::new_v4().simple());
    let endpoint = |i: u8| format!("{base}/{i}");
    let sub = |user_id, i, key: &str| NewPushSubscription {
        user_id,
        endpoint: endpoint(i),
        p256dh: format!("p256dh-{key}"),
        auth: format!("auth-{key}"),
        user_agent: Some(format!("agent-{key}")),
        expires_at: None,
    };
    let ids = |subs: Vec<PushSubscription>| {
        subs.into_iter()
            .filter(|s| s.endpoint.starts_with(&base))
            .map(|s| s.id)
            .collect::<Vec<_>>()
    };

    let first = n.subscribe(sub(alice, 1, "a1")).await.unwrap();
    assert_eq!(
        (
            first.user_id,
            first.endpoint.as_str(),
            first.p256dh.as_str(),
            first.auth.as_str(),
            first.user_agent.as_deref(),
            first.last_used_at,
            first.expires_at
        ),
        (
            Some(alice),
            endpoint(1).as_str(),
            "p256dh-a1",
            "auth-a1",
            Some("agent-a1"),
            None,
            None
        )
    );
    let second = n.subscribe(sub(alice, 2, "a2")).await.unwrap();
    let bobs = n.subscribe(sub(bob, 3, "b1")).await.unwrap();

    // A known endpoint is updated in place: new keys and owner, same subscription.
    let moved = n.subscribe(sub(bob, 1, "b2")).await.unwrap();
    assert_eq!(
        moved,
        PushSubscription {
            user_id: Some(bob),
            p256dh: "p256dh-b2".into(),
            auth: "auth-b2".into(),
            user_agent: Some("agent-b2".into()),
            ..first.clone()
        }
    );

    // Newest first.
    assert_eq!(
        ids(n.subscriptions(None).await.unwrap()),
        [bobs.id, second.id, first.id]
    );
    assert_eq!(
        ids(n.subscriptions(Some(alice)).await.unwrap()),
        [second.id]
    );
    assert_eq!(
        ids(n.subscriptions(Some(bob)).await.unwrap()),
        [bobs.id, first.id]
    );
    assert!(
        n.subscriptions(Some(Uuid::new_v4()))
            .await
            .unwrap()
            .is_empty()
    );

    n.touch(&endpoint(2)).await.unwrap();
    let touched = n.subscriptions(Some(alice)).await.unwrap();
    assert!(touched[0].last_used_at.is_some());
    assert!(matches!(
        n.touch(&endpoint(9)).await,
        Err(RepoError::NotFound)
    ));

    n.unsubscribe(&endpoint(2)).await.unwrap();
    assert!(matches!(
        n.unsubscribe(&endpoint(2)).await,
        Err(RepoError::NotFound)
    ));
    assert!(n.subscriptions(Some(alice)).await.unwrap().is_empty());

    // Older expired subscriptions first, so the counts below are this case's alone.
    n.clean_subscriptions().await.unwrap();
    let expiring = |user_id, i, key, at| NewPushSubscription {
        expires_at: Some(at),
        ..sub(user_id, i, key)
    };
    n.subscribe(expiring(bob, 1, "b2", long_ago()))
        .await
        .unwrap();
    n.subscribe(expiring(bob, 3, "b1", far_ahead()))
        .await
        .unwrap();
    assert_eq!(n.clean_subscriptions().await.unwrap(), 1);
    assert_eq!(n.clean_subscriptions().await.unwrap(), 0);
    assert_eq!(ids(n.subscriptions(None).await.unwrap()), [bobs.id]);
}

/// A subscription is a user's: one for an unknown user is `NotFound`, and stores none.
pub(super) async fn a_subscription_of_an_unknown_user_is_refused(n: &dyn NotificationRepository) {
    let stranger = NewPushSubscription {
        user_id: Uuid::new_v4(),
        endpoint: format!("https://push.example.com/{}", Uuid::new_v4().simple()),
        p256dh: "p256dh".into(),
        auth: "auth".into(),
        user_agent: None,
        expires_at: None,
    };
    let endpoint = stranger.endpoint.clone();
    let refused = n.subscribe(stranger).await;
    assert!(matches!(refused, Err(RepoError::NotFound)), "{refused:?}");
    assert!(
        n.subscriptions(None)
            .await
            .unwrap()
            .iter()
            .all(|s| s.endpoint != endpoint)
    );
}
