use crate::helpers::{TestApp, expect_error, json};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn only_admins_manage_users() {
    let app = TestApp::spawn().await;
    expect_error(
        app.client().get("/api/users").await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    )
    .await;
    for role in ["maintainer", "developer", "viewer"] {
        let s = app.user_with_role(role).await;
        expect_error(
            s.get("/api/users").await,
            StatusCode::FORBIDDEN,
            "FORBIDDEN",
        )
        .await;
        let r = s.post("/api/users", json!({ "email": "x@reviewd.test", "name": "x", "password": "password-1", "role": "admin" })).await;
        expect_error(r, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    }
}

#[tokio::test]
async fn created_users_log_in_with_their_role_and_never_expose_hashes() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let created = json(
        root.post("/api/users", json!({ "email": "Dev@Reviewd.test", "name": "Dev", "password": "dev-password", "role": "developer" })).await,
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(created["data"]["user"]["email"], "dev@reviewd.test");
    assert_eq!(
        created["data"]["user"]["permissions"],
        json!(["review:create", "analysis:upload"]),
        "a developer's key may upload a CI job's SARIF"
    );

    let dev = app.login("dev@reviewd.test", "dev-password").await;
    let me = json(dev.get("/api/auth/me").await, StatusCode::OK).await;
    assert_eq!(me["data"]["user"]["role"], "developer");

    let listed = json(root.get("/api/users").await, StatusCode::OK).await;
    let text = listed.to_string();
    assert!(!text.contains("argon2") && !text.contains("dev-password"));

    expect_error(
        root.post("/api/users", json!({ "email": "dev@reviewd.test", "name": "Again", "password": "password-2", "role": "viewer" })).await,
        StatusCode::CONFLICT,
        "CONFLICT",
    )
    .await;
}

#[tokio::test]
async fn invalid_user_input_names_each_field() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let body = expect_error(
        root.post(
            "/api/users",
            json!({ "email": "not-an-email", "name": "", "password": "short", "role": "viewer" }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    let fields = &body["error"]["details"]["fields"];
    for f in ["email", "name", "password"] {
        assert!(fields[f].is_array(), "{f} is named: {body}");
    }
    expect_error(
        root.post("/api/users", json!({ "email": "a@reviewd.test", "name": "a", "password": "password-1", "role": "root" })).await,
        StatusCode::BAD_REQUEST,
        "INVALID_BODY",
    )
    .await;
}

#[tokio::test]
async fn admins_update_users_but_not_demote_the_root() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let me = json(root.get("/api/auth/me").await, StatusCode::OK).await;
    let root_id = me["data"]["user"]["id"].as_str().unwrap().to_owned();
    expect_error(
        root.patch(
            &format!("/api/users/{root_id}"),
            json!({ "role": "viewer" }),
        )
        .await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    expect_error(
        root.patch(
            &format!("/api/users/{root_id}"),
            json!({ "disabled": true }),
        )
        .await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;

    let created = json(
        root.post("/api/users", json!({ "email": "m@reviewd.test", "name": "M", "password": "m-password", "role": "maintainer" })).await,
        StatusCode::CREATED,
    )
    .await;
    let id = created["data"]["user"]["id"].as_str().unwrap();
    let updated = json(
        root.patch(
            &format!("/api/users/{id}"),
            json!({ "role": "viewer", "name": "Em" }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        (
            updated["data"]["user"]["role"].as_str(),
            updated["data"]["user"]["name"].as_str()
        ),
        (Some("viewer"), Some("Em"))
    );

    let m = app.login("m@reviewd.test", "m-password").await;
    root.patch(&format!("/api/users/{id}"), json!({ "disabled": true }))
        .await;
    expect_error(
        m.get("/api/auth/me").await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    )
    .await;

    let unknown = uuid::Uuid::new_v4();
    expect_error(
        root.patch(&format!("/api/users/{unknown}"), json!({ "name": "x" }))
            .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    expect_error(
        root.get(&format!("/api/users/{unknown}")).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
}

#[tokio::test]
async fn pagination_reports_bounds_clamps_and_rejects() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    for i in 0..4 {
        let r = root.post("/api/users", json!({ "email": format!("p{i}@reviewd.test"), "name": "p", "password": "password-1", "role": "viewer" })).await;
        assert_eq!(r.status(), StatusCode::CREATED);
    }
    let page = json(
        root.get("/api/users?page=2&pageSize=2").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        page["meta"]["pagination"],
        json!({ "page": 2, "pageSize": 2, "total": 5, "totalPages": 3 })
    );
    assert_eq!(page["data"]["items"].as_array().unwrap().len(), 2);

    let clamped = json(root.get("/api/users?pageSize=1000").await, StatusCode::OK).await;
    assert_eq!(clamped["meta"]["pagination"]["pageSize"], 100);
    let beyond = json(root.get("/api/users?page=9").await, StatusCode::OK).await;
    assert_eq!(beyond["data"]["items"], json!([]));

    for bad in [
        "page=0",
        "page=-1",
        "page=abc",
        "pageSize=-5",
        "pageSize=ten",
    ] {
        expect_error(
            root.get(&format!("/api/users?{bad}")).await,
            StatusCode::BAD_REQUEST,
            "INVALID_QUERY",
        )
        .await;
    }
}
