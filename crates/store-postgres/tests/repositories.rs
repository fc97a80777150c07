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
async fn one_live_attempt_per_merge_request() {
    use reviewd_domain::model::{
        AuthType, NewPlatformConfig, NewReviewTask, PlatformProject, PlatformType, TriggeredBy,
    };
    use reviewd_domain::ports::{
        AttemptStart, PlatformConfigRepository, ProjectRepository, TaskInsert, TaskRepository,
    };
    use reviewd_store_postgres::{
        PgPlatformConfigRepository, PgProjectRepository, PgTaskRepository,
    };
    use std::time::Duration;

    let db = TestDb::new().await;
    let pool = db.pool().await;
    let config = PgPlatformConfigRepository::new(
        pool.clone(),
        reviewd_crypto::SecretBox::from_key(&[7; 32]),
    )
    .create(NewPlatformConfig {
        name: "g".into(),
        platform_type: PlatformType::HostA,
        base_url: "https://gitlab.example.com".into(),
        auth_type: AuthType::Token,
        access_token: Some("t".into()),
        app_id: None,
        app_secret: None,
        webhook_secret: None,
        token_scopes: vec![],
        enabled: true,
        is_default: true,
    })
    .await
    .unwrap();
    let project = PgProjectRepository::new(pool.clone())
        .upsert_synced(
            config.id,
            &PlatformProject {
                id: "1".into(),
                name: "p".into(),
                full_path: "g/p".into(),
                web_url: "https://gitlab.example.com/g/p".into(),
                default_branch: None,
                visibility: None,
                platform_type: PlatformType::HostA,
            },
        )
        .await
        .unwrap();
    let tasks = PgTaskRepository::new(pool);
    let new = |head: &str| NewReviewTask {
        triggered_by: TriggeredBy::Auto,
        project_id: project.id,
        mr_iid: 5,
        head_sha: Some(head.into()),
        send_to_platform: true,
        template_id: None,
        requested_by: None,
        max_attempts: 3,
    };
    let lease = Duration::from_secs(600);
    let (TaskInsert::Created(a), _) = tasks.insert(new("aaa")).await.unwrap() else {
        panic!()
    };
    assert!(matches!(
        tasks.begin_attempt(a.id, lease).await.unwrap(),
        AttemptStart::Started(_)
    ));
    let (TaskInsert::Created(b), superseded) = tasks.insert(new("bbb")).await.unwrap() else {
        panic!()
    };
    assert_eq!(superseded, 0, "a running task is not superseded");
    assert_eq!(
        tasks.begin_attempt(b.id, lease).await.unwrap(),
        AttemptStart::Busy
    );
    assert_eq!(
        tasks.begin_attempt(a.id, lease).await.unwrap(),
        AttemptStart::Busy,
        "a live attempt is not restarted by a reclaim"
    );
    assert_eq!(
        tasks.get(b.id).await.unwrap().attempts,
        0,
        "waiting costs no attempt"
    );
    // Once the running attempt's lease has lapsed, its worker is presumed dead.
    assert!(matches!(
        tasks.begin_attempt(b.id, Duration::ZERO).await.unwrap(),
        AttemptStart::Started(_)
    ));
    tasks.complete(b.id, None).await.unwrap();
    tasks.complete(a.id, None).await.unwrap();
    assert_eq!(
        tasks.begin_attempt(a.id, lease).await.unwrap(),
        AttemptStart::NotRunnable
    );

    // A task whose worker died on every attempt is failed, and said to be given up
    // (so its review can be closed), not silently dropped.
    let (TaskInsert::Created(c), _) = tasks
        .insert(NewReviewTask {
            max_attempts: 1,
            ..new("ccc")
        })
        .await
        .unwrap()
    else {
        panic!()
    };
    assert!(matches!(
        tasks.begin_attempt(c.id, lease).await.unwrap(),
        AttemptStart::Started(_)
    ));
    let AttemptStart::GaveUp(given_up) = tasks.begin_attempt(c.id, Duration::ZERO).await.unwrap()
    else {
        panic!("an exhausted task is given up")
    };
    assert_eq!(given_up.id, c.id);
    assert_eq!(given_up.status, reviewd_domain::model::TaskStatus::Failed);
    assert_eq!(
        tasks.begin_attempt(c.id, Duration::ZERO).await.unwrap(),
        AttemptStart::NotRunnable,
        "given up once"
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
    assert_eq!(
        ledger.begin("backup", "b", due_since, stale).await.unwrap(),
        None,
        "a running run blocks"
    );
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
