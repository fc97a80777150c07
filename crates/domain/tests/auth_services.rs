//! Domain services against the in-memory fakes of their ports.

use reviewd_domain::PageRequest;
use reviewd_domain::model::{AuthMethod, Role};
use reviewd_domain::services::{
    ApiKeyService, AuthService, AuthSettings, ClientInfo, NewUserInput, RootOutcome, ServiceError,
    UserService, UserUpdateInput,
};
use reviewd_testkit::MemoryStore;
use reviewd_testkit::fakes::{FakePasswordHasher, FakeTokenHasher, InMemoryThrottle};
use std::sync::Arc;
use std::time::Duration;

struct World {
    auth: AuthService,
    keys: ApiKeyService,
    users: UserService,
    throttle: Arc<InMemoryThrottle>,
}

fn world() -> World {
    let store = Arc::new(MemoryStore::default());
    let tokens = Arc::new(FakeTokenHasher::default());
    let passwords = Arc::new(FakePasswordHasher::default());
    let throttle = Arc::new(InMemoryThrottle::new(3));
    World {
        auth: AuthService::new(
            store.clone(),
            store.clone(),
            store.clone(),
            passwords.clone(),
            tokens.clone(),
            throttle.clone(),
            AuthSettings {
                session_ttl: Duration::from_secs(3600),
            },
        ),
        keys: ApiKeyService::new(store.clone(), tokens),
        users: UserService::new(store, passwords),
        throttle,
    }
}

fn client(ip: &str) -> ClientInfo {
    ClientInfo {
        ip: Some(ip.into()),
        user_agent: None,
    }
}

#[tokio::test]
async fn root_is_created_once_and_can_log_in() {
    let w = world();
    assert_eq!(
        w.auth
            .ensure_root("Admin@Example.com ", "secret-pass")
            .await
            .unwrap(),
        RootOutcome::Created
    );
    assert_eq!(
        w.auth
            .ensure_root("other@example.com", "other-pass")
            .await
            .unwrap(),
        RootOutcome::AlreadyExists
    );

    let logged_in = w
        .auth
        .login("admin@example.com", "secret-pass", client("10.0.0.1"))
        .await
        .unwrap();
    assert_eq!(logged_in.user.role, Role::Admin);
    assert!(logged_in.user.is_root);
    let principal = w
        .auth
        .authenticate_session(&logged_in.session_token)
        .await
        .unwrap();
    assert!(matches!(principal.method, AuthMethod::Session { .. }));

    w.auth.logout(&logged_in.session_token).await.unwrap();
    assert!(matches!(
        w.auth.authenticate_session(&logged_in.session_token).await,
        Err(ServiceError::Unauthenticated)
    ));
}

#[tokio::test]
async fn wrong_password_and_unknown_email_look_the_same_and_are_throttled() {
    let w = world();
    w.auth
        .ensure_root("admin@example.com", "secret-pass")
        .await
        .unwrap();
    for _ in 0..3 {
        assert!(matches!(
            w.auth
                .login("admin@example.com", "nope", client("10.0.0.2"))
                .await,
            Err(ServiceError::InvalidCredentials)
        ));
    }
    assert_eq!(w.throttle.failures("email:admin@example.com"), 3);
    // Past the limit even the right password is refused until the window ends.
    assert!(matches!(
        w.auth
            .login("admin@example.com", "secret-pass", client("10.0.0.3"))
            .await,
        Err(ServiceError::Throttled { .. })
    ));
    assert!(matches!(
        w.auth
            .login("ghost@example.com", "x", client("10.0.0.4"))
            .await,
        Err(ServiceError::InvalidCredentials)
    ));
}

#[tokio::test]
async fn success_resets_the_email_counter() {
    let w = world();
    w.auth
        .ensure_root("admin@example.com", "secret-pass")
        .await
        .unwrap();
    w.auth
        .login("admin@example.com", "typo", client("10.0.0.5"))
        .await
        .unwrap_err();
    w.auth
        .login("admin@example.com", "secret-pass", client("10.0.0.5"))
        .await
        .unwrap();
    assert_eq!(w.throttle.failures("email:admin@example.com"), 0);
    assert_eq!(
        w.throttle.failures("ip:10.0.0.5"),
        1,
        "the address keeps its count"
    );
}

#[tokio::test]
async fn api_keys_authenticate_until_revoked_and_only_owners_revoke() {
    let w = world();
    w.auth
        .ensure_root("admin@example.com", "secret-pass")
        .await
        .unwrap();
    let dev = w
        .users
        .create(NewUserInput {
            email: "dev@example.com".into(),
            name: "Dev".into(),
            password: "dev-pass-1".into(),
            role: Role::Developer,
        })
        .await
        .unwrap();
    let dev_session = w
        .auth
        .login(&dev.email, "dev-pass-1", client("10.0.0.6"))
        .await
        .unwrap();
    let dev_principal = w
        .auth
        .authenticate_session(&dev_session.session_token)
        .await
        .unwrap();

    let created = w.keys.create(&dev_principal, "ci", None).await.unwrap();
    assert!(created.secret.starts_with("rvd_"));
    assert!(created.secret.starts_with(&created.key.prefix));
    let via_key = w.auth.authenticate_api_key(&created.secret).await.unwrap();
    assert_eq!(via_key.user.id, dev.id);
    assert_eq!(via_key.api_key_id(), Some(created.key.id));

    let admin_session = w
        .auth
        .login("admin@example.com", "secret-pass", client("10.0.0.7"))
        .await
        .unwrap();
    let admin = w
        .auth
        .authenticate_session(&admin_session.session_token)
        .await
        .unwrap();
    let admin_key = w.keys.create(&admin, "admin", None).await.unwrap();
    assert!(matches!(
        w.keys.revoke(&dev_principal, admin_key.key.id).await,
        Err(ServiceError::NotFound(_))
    ));

    w.keys.revoke(&dev_principal, created.key.id).await.unwrap();
    assert!(matches!(
        w.auth.authenticate_api_key(&created.secret).await,
        Err(ServiceError::Unauthenticated)
    ));
    assert_eq!(
        w.keys
            .list(&dev_principal, PageRequest::new(1, 20, 100))
            .await
            .unwrap()
            .total,
        1
    );
}

#[tokio::test]
async fn key_creation_rejects_past_expiry_and_blank_names() {
    let w = world();
    w.auth
        .ensure_root("admin@example.com", "secret-pass")
        .await
        .unwrap();
    let s = w
        .auth
        .login("admin@example.com", "secret-pass", client("10.0.0.8"))
        .await
        .unwrap();
    let admin = w.auth.authenticate_session(&s.session_token).await.unwrap();
    let past = chrono::Utc::now() - chrono::Duration::minutes(1);
    assert!(matches!(
        w.keys.create(&admin, "old", Some(past)).await,
        Err(ServiceError::Invalid(_))
    ));
    assert!(matches!(
        w.keys.create(&admin, "  ", None).await,
        Err(ServiceError::Invalid(_))
    ));
}

#[tokio::test]
async fn disabling_a_user_voids_their_sessions_and_keys_but_root_cannot_be_disabled() {
    let w = world();
    w.auth
        .ensure_root("admin@example.com", "secret-pass")
        .await
        .unwrap();
    let viewer = w
        .users
        .create(NewUserInput {
            email: "v@example.com".into(),
            name: "V".into(),
            password: "viewer-pass".into(),
            role: Role::Viewer,
        })
        .await
        .unwrap();
    let s = w
        .auth
        .login("v@example.com", "viewer-pass", client("10.0.0.9"))
        .await
        .unwrap();
    let principal = w.auth.authenticate_session(&s.session_token).await.unwrap();
    let key = w.keys.create(&principal, "k", None).await.unwrap();

    w.users
        .update(
            viewer.id,
            UserUpdateInput {
                disabled: Some(true),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(w.auth.authenticate_session(&s.session_token).await.is_err());
    assert!(w.auth.authenticate_api_key(&key.secret).await.is_err());
    assert!(matches!(
        w.auth
            .login("v@example.com", "viewer-pass", client("10.0.0.10"))
            .await,
        Err(ServiceError::InvalidCredentials)
    ));

    let root = w
        .users
        .list(PageRequest::new(1, 20, 100))
        .await
        .unwrap()
        .items
        .into_iter()
        .find(|u| u.is_root)
        .unwrap();
    let demote = UserUpdateInput {
        role: Some(Role::Viewer),
        ..Default::default()
    };
    assert!(matches!(
        w.users.update(root.id, demote).await,
        Err(ServiceError::Forbidden(_))
    ));
}
