use crate::helpers::{ROOT_EMAIL, ROOT_PASSWORD, TestApp, expect_error, json};
use reqwest::StatusCode;
use serde_json::{Value, json};

const KEY: &str = "reset-key-for-the-tests";

fn reset(
    session: &crate::helpers::Session,
    key: Option<&str>,
) -> impl std::future::Future<Output = reqwest::Result<reqwest::Response>> {
    let mut r = session.request(reqwest::Method::POST, "/api/system/reset");
    if let Some(key) = key {
        r = r.header("X-Reset-Key", key);
    }
    r.send()
}

#[tokio::test]
async fn reset_is_not_there_without_a_configured_key() {
    let app = TestApp::spawn().await;
    expect_error(
        app.client().post("/api/system/reset", Value::Null).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    let root = app.root().await;
    let r = root
        .request(reqwest::Method::POST, "/api/system/reset")
        .header("X-Reset-Key", KEY)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_eq!(app.sql("SELECT count(*) FROM users"), "1");
}

#[tokio::test]
async fn reset_needs_an_admin_and_the_key_then_empties_every_store() {
    let app = TestApp::spawn_with(&[("RESET_DB_KEY", KEY.to_owned())]).await;
    let root = app.root().await;
    let developer = app.user_with_role("developer").await;
    json(
        root.post("/api/monitoring/collect", Value::Null).await,
        StatusCode::OK,
    )
    .await;

    expect_error(
        reset(&app.client(), Some(KEY)).await.unwrap(),
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    )
    .await;
    expect_error(
        reset(&developer, Some(KEY)).await.unwrap(),
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    let wrong = expect_error(
        reset(&root, Some("not-the-key")).await.unwrap(),
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    assert!(!wrong.to_string().contains(KEY), "the key is never echoed");
    expect_error(
        reset(&root, None).await.unwrap(),
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    assert_eq!(
        app.sql("SELECT count(*) FROM users"),
        "2",
        "refusals change nothing"
    );
    assert_eq!(app.sql("SELECT count(*) FROM system_metrics"), "1");

    // Something in the queue's keys, so the wipe of Redis shows.
    let mut redis = deadpool_redis::Config::from_url(reviewd_testkit::test_redis_url())
        .create_pool(Some(deadpool_redis::Runtime::Tokio1))
        .unwrap()
        .get()
        .await
        .unwrap();
    let stream = format!("{}review-tasks", app.queue_prefix);
    let _: String = deadpool_redis::redis::cmd("XADD")
        .arg(&stream)
        .arg("*")
        .arg("task_id")
        .arg(uuid::Uuid::new_v4().to_string())
        .query_async(&mut redis)
        .await
        .unwrap();

    let other_session = app.root().await;
    let body = json(reset(&root, Some(KEY)).await.unwrap(), StatusCode::OK).await;
    assert_eq!(body["data"]["reset"], true);
    assert!(
        body["data"]["cleared"]["database"].as_u64().unwrap() >= 20,
        "{body}"
    );
    assert!(
        body["data"]["cleared"]["queue"].as_u64().unwrap() >= 1,
        "{body}"
    );
    assert_eq!(body["data"]["rootUserRecreated"], true);

    assert_eq!(app.sql("SELECT count(*) FROM system_metrics"), "0");
    assert_eq!(
        app.sql("SELECT email FROM users"),
        ROOT_EMAIL,
        "only the caller (root) is left"
    );
    assert!(
        app.sql("SELECT count(*) FROM __diesel_schema_migrations")
            .parse::<u32>()
            .unwrap()
            >= 6,
        "the schema stays"
    );
    let len: u64 = deadpool_redis::redis::cmd("XLEN")
        .arg(&stream)
        .query_async(&mut redis)
        .await
        .unwrap();
    assert_eq!(len, 0, "the queue is empty");
    let info: deadpool_redis::redis::Value = deadpool_redis::redis::cmd("XINFO")
        .arg("GROUPS")
        .arg(&stream)
        .query_async(&mut redis)
        .await
        .unwrap();
    assert!(
        format!("{info:?}").contains("reviewd-workers"),
        "the consumer group is back: {info:?}"
    );

    // The caller goes on with the session it reset with; every other one is gone.
    json(root.get("/api/auth/me").await, StatusCode::OK).await;
    expect_error(
        other_session.get("/api/auth/me").await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    )
    .await;
    json(
        root.post("/api/users", json!({ "email": "new@reviewd.test", "name": "n", "password": "a-good-password", "role": "viewer" }))
            .await,
        StatusCode::CREATED,
    )
    .await;
    // The rows the migrations create are back: settings read and write at once.
    assert_eq!(app.sql("SELECT count(*) FROM global_settings"), "1");
    json(root.get("/api/notifications/config").await, StatusCode::OK).await;
    json(
        root.patch(
            "/api/notifications/config",
            json!({ "ratingThreshold": 55 }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
}

#[tokio::test]
async fn an_admin_resetting_with_an_api_key_keeps_the_key_and_the_root_user_comes_back() {
    let app = TestApp::spawn_with(&[("RESET_DB_KEY", KEY.to_owned())]).await;
    let root = app.root().await;
    let email = "second-admin@reviewd.test";
    json(
        root.post("/api/users", json!({ "email": email, "name": "Ada", "password": "a-good-password", "role": "admin" }))
            .await,
        StatusCode::CREATED,
    )
    .await;
    let admin = app.login(email, "a-good-password").await;
    let key = json(
        admin.post("/api/api-keys", json!({ "name": "ops" })).await,
        StatusCode::CREATED,
    )
    .await["data"]["apiKey"]["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let with_key = app.with_api_key(&key);
    json(reset(&with_key, Some(KEY)).await.unwrap(), StatusCode::OK).await;

    let me = json(with_key.get("/api/auth/me").await, StatusCode::OK).await;
    assert_eq!(me["data"]["user"]["email"], email);
    // The admin's browser session was not the credential of the reset: it is gone.
    expect_error(
        admin.get("/api/auth/me").await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    )
    .await;
    // The root user is there again and can log in.
    app.login(ROOT_EMAIL, ROOT_PASSWORD).await;
    let mut users: Vec<String> = app
        .sql("SELECT email FROM users ORDER BY email")
        .lines()
        .map(str::to_owned)
        .collect();
    users.sort();
    let mut expected = vec![email.to_owned(), ROOT_EMAIL.to_owned()];
    expected.sort();
    assert_eq!(users, expected);
    assert_eq!(app.sql("SELECT count(*) FROM notification_configs"), "1");
}
