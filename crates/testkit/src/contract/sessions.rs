//! The `SessionRepository` contract: a session is found by its token hash with its
//! user until it expires, deleted by token or once expired, and belongs to an
//! existing user under a token no other session has.

use super::{Stores, assert_conflict, assert_not_found, seed};
use chrono::TimeDelta;
use reviewd_domain::model::NewSession;
use uuid::Uuid;

pub async fn run(s: &Stores) {
    an_unexpired_session_is_found_with_its_user(s).await;
    sessions_are_deleted_by_token_or_once_expired(s).await;
    a_session_needs_a_user_and_its_own_token(s).await;
}

async fn an_unexpired_session_is_found_with_its_user(s: &Stores) {
    let now = seed::now();
    let user = seed::user(s).await;
    let (live, live_hash) = seed::session(s, user.id, now + TimeDelta::hours(1)).await;
    assert_eq!(
        (live.user_id, live.expires_at),
        (user.id, now + TimeDelta::hours(1))
    );
    let found = s.sessions.find_active(&live_hash, now).await.unwrap();
    assert_eq!(found, Some((live, user.clone())));

    let (_, ending_now) = seed::session(s, user.id, now).await;
    assert_eq!(
        s.sessions.find_active(&ending_now, now).await.unwrap(),
        None
    );
    let (_, ended) = seed::session(s, user.id, now - TimeDelta::seconds(1)).await;
    assert_eq!(s.sessions.find_active(&ended, now).await.unwrap(), None);
    let unknown = format!("session-{}", seed::unique());
    assert_eq!(s.sessions.find_active(&unknown, now).await.unwrap(), None);
}

async fn sessions_are_deleted_by_token_or_once_expired(s: &Stores) {
    let now = seed::now();
    let user = seed::user(s).await;
    let (_, live) = seed::session(s, user.id, now + TimeDelta::hours(1)).await;
    let (_, ending_now) = seed::session(s, user.id, now).await;
    let (_, ended) = seed::session(s, user.id, now - TimeDelta::seconds(1)).await;

    let deleted = s.sessions.delete_expired(now).await.unwrap();
    assert!(deleted >= 2, "ours expired at or before now: {deleted}");
    for gone in [&ending_now, &ended] {
        assert!(!s.sessions.delete(gone).await.unwrap(), "already deleted");
    }
    assert!(s.sessions.find_active(&live, now).await.unwrap().is_some());
    assert!(s.sessions.delete(&live).await.unwrap());
    assert_eq!(s.sessions.find_active(&live, now).await.unwrap(), None);
    assert!(!s.sessions.delete(&live).await.unwrap());
}

async fn a_session_needs_a_user_and_its_own_token(s: &Stores) {
    let user = seed::user(s).await;
    let (_, taken) = seed::session(s, user.id, seed::now() + TimeDelta::hours(1)).await;
    let new = |user_id, token_hash: &str| NewSession {
        user_id,
        token_hash: token_hash.to_owned(),
        user_agent: Some("test".into()),
        ip: Some("10.0.0.1".into()),
        expires_at: seed::now() + TimeDelta::hours(1),
    };
    assert_not_found(s.sessions.create(new(Uuid::new_v4(), "orphan")).await);
    assert_conflict(s.sessions.create(new(user.id, &taken)).await);
}
