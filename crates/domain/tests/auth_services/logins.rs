//! The root user, logins that fail alike, the counts that refuse (an email from one
//! address, one address) and the one that only slows (an email from anywhere).

use super::*;
use reviewd_domain::services::login_guard::{MAX_DELAY, PER_ADDRESS, PER_PAIR};

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
async fn wrong_password_and_unknown_email_look_the_same_and_one_address_is_refused() {
    let w = world();
    w.auth
        .ensure_root("admin@example.com", "secret-pass")
        .await
        .unwrap();
    for _ in 0..PER_PAIR {
        assert!(matches!(
            w.auth
                .login("admin@example.com", "nope", client("10.0.0.2"))
                .await,
            Err(ServiceError::InvalidCredentials)
        ));
    }
    assert_eq!(w.throttle.failures("email:admin@example.com"), PER_PAIR);
    // From that address, past the limit, even the right password is refused.
    assert!(matches!(
        w.auth
            .login("admin@example.com", "secret-pass", client("10.0.0.2"))
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
async fn a_stranger_cannot_lock_the_owner_out_only_slow_them_down() {
    let w = world();
    w.auth
        .ensure_root("admin@example.com", "secret-pass")
        .await
        .unwrap();
    // Fifty wrong passwords for the admin, from ten addresses of the stranger's.
    for i in 0..50 {
        let _ = w
            .auth
            .login(
                "admin@example.com",
                "guess",
                client(&format!("10.9.0.{}", i % 10)),
            )
            .await;
    }
    assert_eq!(w.throttle.failures("email:admin@example.com"), 50);
    let slept_before = w.clock.slept().len();
    w.auth
        .login("admin@example.com", "secret-pass", client("10.0.0.7"))
        .await
        .expect("the owner logs in from their own address");
    let waits = &w.clock.slept()[slept_before..];
    assert_eq!(waits, [MAX_DELAY], "slowed, by at most {MAX_DELAY:?}");
}

#[tokio::test]
async fn one_address_trying_many_emails_is_refused() {
    let w = world();
    for i in 0..PER_ADDRESS {
        let _ = w
            .auth
            .login(&format!("user{i}@example.com"), "guess", client("10.0.0.8"))
            .await;
    }
    assert!(matches!(
        w.auth
            .login("another@example.com", "guess", client("10.0.0.8"))
            .await,
        Err(ServiceError::Throttled { .. })
    ));
    assert!(
        matches!(
            w.auth
                .login("another@example.com", "guess", client("10.0.0.9"))
                .await,
            Err(ServiceError::InvalidCredentials)
        ),
        "other addresses are not"
    );
}

#[tokio::test]
async fn success_forgets_this_addresss_failures_on_the_email() {
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
    assert_eq!(
        w.throttle.failures("email-ip:admin@example.com|10.0.0.5"),
        0
    );
    assert_eq!(
        w.throttle.failures("ip:10.0.0.5"),
        1,
        "the address keeps its count"
    );
}
