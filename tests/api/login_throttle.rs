//! Logins behind a proxy and under attack, on the API and on the dashboard's form:
//! the client's address comes from a trusted proxy's headers and from nobody
//! else's, and no stranger can lock a person out (`services::login_guard`).

use crate::helpers::{ROOT_EMAIL, ROOT_PASSWORD, TestApp};
use reqwest::StatusCode;
use serde_json::json;
use std::time::{Duration, Instant};

/// The two doors a person logs in through.
#[derive(Clone, Copy, Debug)]
enum Door {
    Api,
    Form,
}

/// One login attempt, as if forwarded for `client` (an `X-Forwarded-For` value).
async fn attempt(app: &TestApp, door: Door, forwarded_for: &str, password: &str) -> StatusCode {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let request = match door {
        Door::Api => http
            .post(app.url("/api/auth/login"))
            .json(&json!({ "email": ROOT_EMAIL, "password": password })),
        Door::Form => http.post(app.url("/login")).form(&[
            ("email", ROOT_EMAIL),
            ("password", password),
            ("next", "/"),
        ]),
    };
    request
        .header("x-forwarded-for", forwarded_for)
        .send()
        .await
        .unwrap()
        .status()
}

/// What each door answers to a good password, a wrong one and a refusal.
fn logged_in(door: Door, status: StatusCode) -> bool {
    match door {
        Door::Api => status == StatusCode::OK,
        Door::Form => status == StatusCode::SEE_OTHER,
    }
}

const REFUSED: StatusCode = StatusCode::TOO_MANY_REQUESTS;

#[tokio::test]
async fn behind_a_trusted_proxy_two_clients_are_told_apart() {
    let app = TestApp::spawn_with(&[("TRUSTED_PROXIES", "127.0.0.1, 10.0.0.0/8".to_owned())]).await;
    for door in [Door::Api, Door::Form] {
        let guesser = format!("198.51.100.{}", door as u8 + 1);
        for _ in 0..10 {
            assert_eq!(
                attempt(&app, door, &guesser, "guess").await,
                StatusCode::UNAUTHORIZED
            );
        }
        assert_eq!(
            attempt(&app, door, &guesser, ROOT_PASSWORD).await,
            REFUSED,
            "{door:?}"
        );
        // Another client behind the same proxy is someone else.
        let owner = format!("192.0.2.{}", door as u8 + 1);
        let status = attempt(&app, door, &owner, ROOT_PASSWORD).await;
        assert!(logged_in(door, status), "{door:?}: {status}");
    }
}

#[tokio::test]
async fn a_forwarded_header_from_an_untrusted_peer_is_ignored() {
    // No TRUSTED_PROXIES: every attempt is 127.0.0.1's, whatever it claims.
    for door in [Door::Api, Door::Form] {
        let app = TestApp::spawn().await;
        for i in 0..10 {
            let claimed = format!("203.0.113.{i}");
            assert_eq!(
                attempt(&app, door, &claimed, "guess").await,
                StatusCode::UNAUTHORIZED
            );
        }
        assert_eq!(
            attempt(&app, door, "203.0.113.200", ROOT_PASSWORD).await,
            REFUSED,
            "{door:?}: a new claimed address is no way around the count"
        );
    }
}

#[tokio::test]
async fn fifty_wrong_passwords_from_one_address_do_not_lock_the_owner_out() {
    let app = TestApp::spawn_with(&[("TRUSTED_PROXIES", "127.0.0.1".to_owned())]).await;
    for door in [Door::Api, Door::Form] {
        for _ in 0..50 {
            let status = attempt(&app, door, "203.0.113.66", "guess").await;
            assert!(
                status == StatusCode::UNAUTHORIZED || status == REFUSED,
                "{status}"
            );
        }
        let started = Instant::now();
        let status = attempt(&app, door, "192.0.2.10", ROOT_PASSWORD).await;
        let took = started.elapsed();
        assert!(logged_in(door, status), "{door:?}: {status}");
        assert!(
            took < Duration::from_secs(5),
            "{door:?}: slowed, not locked out: {took:?}"
        );
    }
}
