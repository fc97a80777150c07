//! The Postgres repositories against a real database (one per test).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use chrono::{Duration, Utc};
use reviewd_domain::PageRequest;
use reviewd_domain::model::{NewApiKey, NewSession, NewUser, Role, UserChanges};
use reviewd_domain::ports::{ApiKeyRepository, RepoError, SessionRepository, UserRepository};
use reviewd_store_postgres::{PgApiKeyRepository, PgSessionRepository, PgUserRepository};
use reviewd_testkit::TestDb;

fn new_user(email: &str, root: bool) -> NewUser {
    NewUser {
        email: email.into(),
        name: "N".into(),
        password_hash: "h".into(),
        role: Role::Maintainer,
        is_root: root,
    }
}

#[tokio::test]
async fn users_are_unique_by_email_with_a_single_root() {
    let db = TestDb::new().await;
    let users = PgUserRepository::new(db.pool().await);
    assert!(!users.root_exists().await.unwrap());
    let root = users
        .create(new_user("root@example.com", true))
        .await
        .unwrap();
    assert!(users.root_exists().await.unwrap());
    assert!(matches!(
        users.create(new_user("root@example.com", false)).await,
        Err(RepoError::Conflict(_))
    ));
    assert!(matches!(
        users
            .create(new_user("second-root@example.com", true))
            .await,
        Err(RepoError::Conflict(_))
    ));

    let (found, hash) = users
        .find_credentials("root@example.com")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (found.id, found.role, hash.as_str()),
        (root.id, Role::Maintainer, "h")
    );
    assert!(
        users
            .find_credentials("nobody@example.com")
            .await
            .unwrap()
            .is_none()
    );

    let changed = users
        .update(
            root.id,
            UserChanges {
                role: Some(Role::Admin),
                name: Some("Root".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!((changed.role, changed.name.as_str()), (Role::Admin, "Root"));
    assert!(changed.updated_at >= root.updated_at);
    assert!(matches!(
        users
            .update(uuid::Uuid::new_v4(), UserChanges::default())
            .await,
        Err(RepoError::NotFound)
    ));
}

#[tokio::test]
async fn users_page_in_creation_order() {
    let db = TestDb::new().await;
    let users = PgUserRepository::new(db.pool().await);
    for i in 0..5 {
        users
            .create(new_user(&format!("u{i}@example.com"), false))
            .await
            .unwrap();
    }
    let page = users.list(PageRequest::new(2, 2, 100)).await.unwrap();
    assert_eq!(page.total, 5);
    assert_eq!(page.total_pages(), 3);
    let emails: Vec<_> = page.items.iter().map(|u| u.email.as_str()).collect();
    assert_eq!(emails, ["u2@example.com", "u3@example.com"]);
}

#[tokio::test]
async fn sessions_expire_and_are_deleted() {
    let db = TestDb::new().await;
    let pool = db.pool().await;
    let user = PgUserRepository::new(pool.clone())
        .create(new_user("s@example.com", false))
        .await
        .unwrap();
    let sessions = PgSessionRepository::new(pool);
    let now = Utc::now();
    for (hash, expires) in [
        ("live", now + Duration::hours(1)),
        ("dead", now - Duration::seconds(1)),
    ] {
        sessions
            .create(NewSession {
                user_id: user.id,
                token_hash: hash.into(),
                user_agent: None,
                ip: None,
                expires_at: expires,
            })
            .await
            .unwrap();
    }
    assert_eq!(
        sessions
            .find_active("live", now)
            .await
            .unwrap()
            .unwrap()
            .1
            .id,
        user.id
    );
    assert!(sessions.find_active("dead", now).await.unwrap().is_none());
    assert_eq!(sessions.delete_expired(now).await.unwrap(), 1);
    assert!(sessions.delete("live").await.unwrap());
    assert!(!sessions.delete("live").await.unwrap());
    let orphan = NewSession {
        user_id: uuid::Uuid::new_v4(),
        token_hash: "x".into(),
        user_agent: None,
        ip: None,
        expires_at: now,
    };
    assert!(matches!(
        sessions.create(orphan).await,
        Err(RepoError::NotFound)
    ));
}

#[tokio::test]
async fn api_keys_find_only_active_and_revoke_per_owner() {
    let db = TestDb::new().await;
    let pool = db.pool().await;
    let users = PgUserRepository::new(pool.clone());
    let alice = users
        .create(new_user("alice@example.com", false))
        .await
        .unwrap();
    let bob = users
        .create(new_user("bob@example.com", false))
        .await
        .unwrap();
    let keys = PgApiKeyRepository::new(pool);
    let now = Utc::now();
    let key = |user_id, hash: &str, expires_at| NewApiKey {
        user_id,
        name: "k".into(),
        prefix: "rvd_abc".into(),
        key_hash: hash.into(),
        expires_at,
    };

    let live = keys.create(key(alice.id, "live", None)).await.unwrap();
    keys.create(key(alice.id, "expired", Some(now - Duration::minutes(1))))
        .await
        .unwrap();
    assert!(matches!(
        keys.create(key(bob.id, "live", None)).await,
        Err(RepoError::Conflict(_))
    ));

    assert_eq!(
        keys.find_active("live", now)
            .await
            .unwrap()
            .unwrap()
            .1
            .email,
        "alice@example.com"
    );
    assert!(keys.find_active("expired", now).await.unwrap().is_none());

    keys.touch(live.id, now).await.unwrap();
    let listed = keys
        .list_for_user(alice.id, PageRequest::new(1, 20, 100))
        .await
        .unwrap();
    assert_eq!(listed.total, 2);
    assert!(
        listed
            .items
            .iter()
            .any(|k| k.id == live.id && k.last_used_at.is_some())
    );

    assert!(matches!(
        keys.revoke(live.id, Some(bob.id), now).await,
        Err(RepoError::NotFound)
    ));
    keys.revoke(live.id, Some(alice.id), now).await.unwrap();
    assert!(keys.find_active("live", now).await.unwrap().is_none());
    assert!(
        matches!(
            keys.revoke(live.id, None, now).await,
            Err(RepoError::NotFound)
        ),
        "already revoked"
    );
}

#[tokio::test]
async fn a_failed_job_run_is_tried_again_after_a_cool_down_not_on_every_tick() {
    use reviewd_domain::ports::{JobLedger, JobOutcome};
    let db = TestDb::new().await;
    let ledger = reviewd_store_postgres::PgJobLedger::new(db.pool().await);
    let due_since = chrono::Utc::now() - chrono::TimeDelta::hours(1);
    let stale = chrono::TimeDelta::minutes(5);
    let run = ledger
        .begin("backup", "a", due_since, stale)
        .await
        .unwrap()
        .expect("nothing ran this period");
    ledger
        .finish(run, &JobOutcome::Failed("pg_dump exited with 1".into()))
        .await
        .unwrap();
    assert_eq!(
        ledger.begin("backup", "b", due_since, stale).await.unwrap(),
        None,
        "a fresh failure blocks for the cool-down"
    );
    // A minute later the job is tried again.
    let pool = db.pool().await;
    let mut conn = pool.get().await.unwrap();
    diesel_async::RunQueryDsl::execute(
        diesel::sql_query("UPDATE job_runs SET finished_at = now() - interval '61 seconds'"),
        &mut conn,
    )
    .await
    .unwrap();
    assert!(
        ledger
            .begin("backup", "b", due_since, stale)
            .await
            .unwrap()
            .is_some()
    );
}
