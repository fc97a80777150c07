//! The root user, logins that fail alike and are throttled, and a success that resets the count.

use super::*;

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
