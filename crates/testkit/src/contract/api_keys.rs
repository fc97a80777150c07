//! The `ApiKeyRepository` contract: only unrevoked, unexpired keys are found, with
//! their owner; a user's keys list newest first, revoked ones included; a key is
//! revoked once, by its owner or an admin; a use is recorded.

use super::{Stores, assert_conflict, assert_not_found, seed};
use chrono::TimeDelta;
use reviewd_domain::PageRequest;
use reviewd_domain::model::{ApiKey, NewApiKey};
use uuid::Uuid;

pub async fn run(s: &Stores) {
    only_active_keys_are_found_with_their_owner(s).await;
    a_users_keys_list_newest_first_revoked_included(s).await;
    a_key_is_revoked_once_by_its_owner_or_anyone(s).await;
    a_key_needs_a_user_and_its_own_hash(s).await;
    a_use_is_recorded(s).await;
}

async fn create(s: &Stores, new: &NewApiKey) -> ApiKey {
    s.api_keys.create(new.clone()).await.unwrap()
}

async fn only_active_keys_are_found_with_their_owner(s: &Stores) {
    let now = seed::now();
    let user = seed::user(s).await;
    let forever = seed::new_api_key(user.id, None);
    let key = create(s, &forever).await;
    assert_eq!(
        (key.user_id, key.last_used_at, key.revoked_at),
        (user.id, None, None)
    );
    let found = s
        .api_keys
        .find_active(&forever.key_hash, now)
        .await
        .unwrap();
    assert_eq!(found, Some((key, user.clone())));

    let later = seed::new_api_key(user.id, Some(now + TimeDelta::minutes(1)));
    create(s, &later).await;
    assert!(
        s.api_keys
            .find_active(&later.key_hash, now)
            .await
            .unwrap()
            .is_some()
    );
    for expires_at in [now, now - TimeDelta::minutes(1)] {
        let expired = seed::new_api_key(user.id, Some(expires_at));
        create(s, &expired).await;
        let found = s
            .api_keys
            .find_active(&expired.key_hash, now)
            .await
            .unwrap();
        assert_eq!(found, None, "expired at {expires_at}");
    }
    let unknown = format!("key-{}", seed::unique());
    assert_eq!(s.api_keys.find_active(&unknown, now).await.unwrap(), None);
}

async fn a_users_keys_list_newest_first_revoked_included(s: &Stores) {
    let user = seed::user(s).await;
    let mut keys = Vec::new();
    for _ in 0..3 {
        keys.push(create(s, &seed::new_api_key(user.id, None)).await);
    }
    let someone_else = seed::user(s).await;
    create(s, &seed::new_api_key(someone_else.id, None)).await;
    s.api_keys
        .revoke(keys[1].id, None, seed::now())
        .await
        .unwrap();

    let page = |n| PageRequest::new(n, 2, 100);
    let first = s.api_keys.list_for_user(user.id, page(1)).await.unwrap();
    let listed: Vec<(Uuid, bool)> = first
        .items
        .iter()
        .map(|k| (k.id, k.revoked_at.is_some()))
        .collect();
    assert_eq!(listed, [(keys[2].id, false), (keys[1].id, true)]);
    assert_eq!(first.total, 3);
    let second = s.api_keys.list_for_user(user.id, page(2)).await.unwrap();
    assert_eq!(second.items, [keys[0].clone()]);
    assert_eq!(second.total, 3);
    let nobody = s
        .api_keys
        .list_for_user(Uuid::new_v4(), page(1))
        .await
        .unwrap();
    assert_eq!((nobody.items.len(), nobody.total), (0, 0));
}

async fn a_key_is_revoked_once_by_its_owner_or_anyone(s: &Stores) {
    let now = seed::now();
    let (alice, bob) = (seed::user(s).await, seed::user(s).await);
    let new = seed::new_api_key(alice.id, None);
    let key = create(s, &new).await;

    assert_not_found(s.api_keys.revoke(key.id, Some(bob.id), now).await);
    assert!(
        s.api_keys
            .find_active(&new.key_hash, now)
            .await
            .unwrap()
            .is_some()
    );
    s.api_keys
        .revoke(key.id, Some(alice.id), now)
        .await
        .unwrap();
    assert_eq!(
        s.api_keys.find_active(&new.key_hash, now).await.unwrap(),
        None
    );
    let listed = s
        .api_keys
        .list_for_user(alice.id, PageRequest::new(1, 10, 100));
    assert_eq!(listed.await.unwrap().items[0].revoked_at, Some(now));
    assert_not_found(s.api_keys.revoke(key.id, None, now).await);
    assert_not_found(s.api_keys.revoke(Uuid::new_v4(), None, now).await);

    let other = create(s, &seed::new_api_key(bob.id, None)).await;
    s.api_keys.revoke(other.id, None, now).await.unwrap();
}

async fn a_key_needs_a_user_and_its_own_hash(s: &Stores) {
    let (alice, bob) = (seed::user(s).await, seed::user(s).await);
    let taken = seed::new_api_key(alice.id, None);
    create(s, &taken).await;
    let twin = NewApiKey {
        user_id: bob.id,
        ..taken
    };
    assert_conflict(s.api_keys.create(twin).await);
    let orphan = seed::new_api_key(Uuid::new_v4(), None);
    assert_not_found(s.api_keys.create(orphan).await);
}

async fn a_use_is_recorded(s: &Stores) {
    let now = seed::now();
    let user = seed::user(s).await;
    let key = create(s, &seed::new_api_key(user.id, None)).await;
    s.api_keys.touch(key.id, now).await.unwrap();
    let listed = s
        .api_keys
        .list_for_user(user.id, PageRequest::new(1, 10, 100));
    assert_eq!(listed.await.unwrap().items[0].last_used_at, Some(now));
    s.api_keys.touch(Uuid::new_v4(), now).await.unwrap();

    // Within the minute a use is not written again; after it, it is.
    let last_used = async |s: &Stores| {
        s.api_keys
            .list_for_user(user.id, PageRequest::new(1, 10, 100))
            .await
            .unwrap()
            .items[0]
            .last_used_at
    };
    s.api_keys
        .touch(key.id, now + TimeDelta::seconds(30))
        .await
        .unwrap();
    assert_eq!(last_used(s).await, Some(now), "within the minute");
    let later = now + TimeDelta::seconds(61);
    s.api_keys.touch(key.id, later).await.unwrap();
    assert_eq!(last_used(s).await, Some(later), "after the minute");
}
