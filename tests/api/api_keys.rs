use crate::helpers::{TestApp, expect_error, json};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn a_key_is_shown_once_and_acts_as_its_owner_until_revoked() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let created = json(
        root.post("/api/api-keys", json!({ "name": "ci" })).await,
        StatusCode::CREATED,
    )
    .await;
    let key = created["data"]["apiKey"]["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let id = created["data"]["apiKey"]["id"].as_str().unwrap().to_owned();
    assert!(key.starts_with("rvd_") && key.len() > 40);

    let listed = json(root.get("/api/api-keys").await, StatusCode::OK).await;
    let text = listed.to_string();
    assert!(!text.contains(&key), "the key is never listed");
    assert_eq!(listed["data"]["items"][0]["prefix"], &key[..12]);
    assert_eq!(listed["meta"]["pagination"]["total"], 1);

    let me = json(
        app.with_api_key(&key).get("/api/auth/me").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(me["data"]["authMethod"], "apiKey");
    assert_eq!(me["data"]["user"]["role"], "admin");

    let via_header = reqwest::Client::new()
        .get(app.url("/api/auth/me"))
        .header("x-api-key", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(via_header.status(), StatusCode::OK);

    assert_eq!(
        root.delete(&format!("/api/api-keys/{id}")).await.status(),
        StatusCode::OK
    );
    expect_error(
        app.with_api_key(&key).get("/api/auth/me").await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    )
    .await;
    expect_error(
        root.delete(&format!("/api/api-keys/{id}")).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
}

#[tokio::test]
async fn bad_credentials_are_401() {
    let app = TestApp::spawn().await;
    expect_error(
        app.with_api_key("rvd_not-a-real-key")
            .get("/api/auth/me")
            .await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    )
    .await;
    let basic = reqwest::Client::new()
        .get(app.url("/api/auth/me"))
        .basic_auth("root", Some("pw"))
        .send()
        .await
        .unwrap();
    expect_error(basic, StatusCode::UNAUTHORIZED, "UNAUTHORIZED").await;
    // A bad key is not rescued by a valid cookie sent alongside.
    let root = app.root().await;
    let mixed = root
        .request(reqwest::Method::GET, "/api/auth/me")
        .bearer_auth("rvd_wrong")
        .send()
        .await
        .unwrap();
    expect_error(mixed, StatusCode::UNAUTHORIZED, "UNAUTHORIZED").await;
}

#[tokio::test]
async fn keys_are_private_to_their_owner() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let created = json(
        root.post("/api/api-keys", json!({ "name": "root's" }))
            .await,
        StatusCode::CREATED,
    )
    .await;
    let root_key_id = created["data"]["apiKey"]["id"].as_str().unwrap().to_owned();

    let dev = app.user_with_role("developer").await;
    let listed = json(dev.get("/api/api-keys").await, StatusCode::OK).await;
    assert_eq!(listed["meta"]["pagination"]["total"], 0);
    expect_error(
        dev.delete(&format!("/api/api-keys/{root_key_id}")).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
}

#[tokio::test]
async fn expired_keys_and_bad_input_are_refused() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let body = expect_error(
        root.post(
            "/api/api-keys",
            json!({ "name": "old", "expiresAt": "2001-01-01T00:00:00Z" }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert!(body["error"]["details"]["fields"]["expiresAt"].is_array());
    expect_error(
        root.post("/api/api-keys", json!({ "name": "" })).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    expect_error(
        root.post("/api/api-keys", json!({ "name": "x", "scope": "all" }))
            .await,
        StatusCode::BAD_REQUEST,
        "INVALID_BODY",
    )
    .await;
    expect_error(
        root.delete("/api/api-keys/not-a-uuid").await,
        StatusCode::BAD_REQUEST,
        "INVALID_PATH",
    )
    .await;

    let soon = (chrono::Utc::now() + chrono::Duration::seconds(2)).to_rfc3339();
    let created = json(
        root.post(
            "/api/api-keys",
            json!({ "name": "brief", "expiresAt": soon }),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    let key = created["data"]["apiKey"]["key"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        app.with_api_key(&key).get("/api/auth/me").await.status(),
        StatusCode::OK
    );
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    expect_error(
        app.with_api_key(&key).get("/api/auth/me").await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    )
    .await;
}
