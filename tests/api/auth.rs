use crate::helpers::{ROOT_EMAIL, ROOT_PASSWORD, TestApp, expect_error, json};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn root_logs_in_with_a_secure_session_cookie_and_logs_out() {
    let app = TestApp::spawn().await;
    let s = app.client();
    let r = s
        .post(
            "/api/auth/login",
            json!({ "email": ROOT_EMAIL.to_uppercase(), "password": ROOT_PASSWORD }),
        )
        .await;
    let cookie = r
        .headers()
        .get("set-cookie")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    assert!(cookie.starts_with("reviewd_session="));
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Path=/")
    );
    let body = json(r, StatusCode::OK).await;
    assert_eq!(body["data"]["user"]["email"], ROOT_EMAIL);
    assert!(body["data"]["user"].get("passwordHash").is_none());

    let me = json(s.get("/api/auth/me").await, StatusCode::OK).await;
    assert_eq!(me["data"]["user"]["role"], "admin");
    assert_eq!(me["data"]["user"]["isRoot"], true);
    assert_eq!(me["data"]["authMethod"], "session");
    assert!(
        me["data"]["user"]["permissions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p == "config:delete")
    );

    assert_eq!(
        s.post("/api/auth/logout", json!({})).await.status(),
        StatusCode::OK
    );
    expect_error(
        s.get("/api/auth/me").await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    )
    .await;
}

#[tokio::test]
async fn a_stolen_cookie_stops_working_after_logout() {
    let app = TestApp::spawn().await;
    let s = app.client();
    let r = s
        .post(
            "/api/auth/login",
            json!({ "email": ROOT_EMAIL, "password": ROOT_PASSWORD }),
        )
        .await;
    let cookie = r
        .headers()
        .get("set-cookie")
        .unwrap()
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    s.post("/api/auth/logout", json!({})).await;
    let replay = reqwest::Client::new()
        .get(app.url("/api/auth/me"))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    expect_error(replay, StatusCode::UNAUTHORIZED, "UNAUTHORIZED").await;
}

#[tokio::test]
async fn wrong_password_and_unknown_user_get_the_same_answer() {
    let app = TestApp::spawn().await;
    let s = app.client();
    let a = expect_error(
        s.post(
            "/api/auth/login",
            json!({ "email": ROOT_EMAIL, "password": "wrong" }),
        )
        .await,
        StatusCode::UNAUTHORIZED,
        "INVALID_CREDENTIALS",
    )
    .await;
    let b = expect_error(
        s.post(
            "/api/auth/login",
            json!({ "email": "nobody@reviewd.test", "password": "wrong" }),
        )
        .await,
        StatusCode::UNAUTHORIZED,
        "INVALID_CREDENTIALS",
    )
    .await;
    assert_eq!(a, b);
}

#[tokio::test]
async fn repeated_failures_are_throttled_with_retry_after() {
    let app = TestApp::spawn().await;
    let s = app.client();
    for _ in 0..10 {
        let r = s
            .post(
                "/api/auth/login",
                json!({ "email": ROOT_EMAIL, "password": "guess" }),
            )
            .await;
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    }
    let r = s
        .post(
            "/api/auth/login",
            json!({ "email": ROOT_EMAIL, "password": ROOT_PASSWORD }),
        )
        .await;
    let retry_after: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry_after > 0 && retry_after <= 900);
    expect_error(r, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
}

#[tokio::test]
async fn login_validates_its_body() {
    let app = TestApp::spawn().await;
    let s = app.client();
    let body = expect_error(
        s.post("/api/auth/login", json!({ "email": "", "password": "" }))
            .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert!(body["error"]["details"]["fields"]["email"].is_array());
    assert!(body["error"]["details"]["fields"]["password"].is_array());
    let body = expect_error(
        s.post(
            "/api/auth/login",
            json!({ "email": ROOT_EMAIL, "password": ROOT_PASSWORD, "remember": true }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "INVALID_BODY",
    )
    .await;
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("remember")
    );
}
