//! No input makes a 5xx: NUL and control characters anywhere a client can put them are
//! 400s naming where they were, and the defects found by hand have their regression
//! tests here (issue 13).

use crate::helpers::{TestApp, expect_error, json};
use crate::runners::api_key;
use reqwest::StatusCode;
use serde_json::{Value, json};

/// A browser's push subscription keys (valid shapes).
fn push_keys() -> Value {
    json!({
        "p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM",
        "auth": "tBHItJI5svbpez7KI4CCXg"
    })
}

/// The field names of a `VALIDATION_FAILED` answer.
fn fields(body: &Value) -> Vec<String> {
    body["error"]["details"]["fields"]
        .as_object()
        .map(|f| f.keys().cloned().collect())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_nul_character_is_a_400_naming_the_field_wherever_it_is_sent() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let anonymous = reqwest::Client::new();

    // A login with no credentials at all, NUL in the email.
    let r = anonymous
        .post(app.url("/api/auth/login"))
        .json(&json!({ "email": "a\u{0}b@reviewd.test", "password": "x" }))
        .send()
        .await
        .unwrap();
    let body = expect_error(r, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(fields(&body), ["/email"]);

    // In a path parameter and a query parameter.
    expect_error(
        root.get("/api/runners/a%00b").await,
        StatusCode::BAD_REQUEST,
        "INVALID_PATH",
    )
    .await;
    let body = expect_error(
        root.get("/api/projects/paginated?search=svc%00").await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUERY",
    )
    .await;
    assert_eq!(fields(&body), ["search"]);
    expect_error(
        root.get("/api/reviews?status=pending%0A").await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUERY",
    )
    .await;

    // In bodies: a notification setting, a platform config's name, nested in an array.
    let body = expect_error(
        root.patch(
            "/api/notifications/config",
            json!({ "smtpHost": "mail\u{0}.example.com" }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert_eq!(fields(&body), ["/smtpHost"]);
    let body = expect_error(
        root.post(
            "/api/platform-configs",
            json!({ "name": "Git\u{0}Lab", "platformType": "hostA", "baseUrl": "https://gitlab.example.com", "accessToken": "t" }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert_eq!(fields(&body), ["/name"]);
    let body = expect_error(
        root.patch(
            "/api/notifications/config",
            json!({ "emailRecipients": ["a@example.com", "b\u{0}@example.com"] }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert_eq!(fields(&body), ["/emailRecipients/1"]);

    // A webhook whose project path (or head SHA) carries a NUL: a caller without the
    // token learns nothing about its body (401); with it, the field is named.
    let gitlab = reviewd_testkit::FakeGitlab::start("glpat-hygiene").await;
    crate::helpers::create_gitlab_config(&app, &gitlab).await;
    let mut hook = crate::review_pipeline::fixture();
    hook["project"]["path_with_namespace"] = json!("group/svc\u{0}");
    for (token, status) in [
        ("anything", StatusCode::UNAUTHORIZED),
        ("hook-secret-a", StatusCode::BAD_REQUEST),
    ] {
        let r = anonymous
            .post(app.url("/api/webhook/hostA"))
            .header("X-Gitlab-Token", token)
            .json(&hook)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), status, "token {token}");
        if status == StatusCode::BAD_REQUEST {
            let body = expect_error(r, status, "VALIDATION_FAILED").await;
            assert_eq!(fields(&body), ["/project/path_with_namespace"]);
        }
    }
    // The same body declared as something else than JSON, and the NUL in the head SHA.
    let mut hook = crate::review_pipeline::fixture();
    hook["object_attributes"]["last_commit"]["id"] = json!("da15\u{0}");
    let r = anonymous
        .post(app.url("/api/webhook/hostA"))
        .header("X-Gitlab-Token", "hook-secret-a")
        .header("Content-Type", "text/plain")
        .body(hook.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::BAD_REQUEST,
        "a disguised NUL got through"
    );

    // A body on a DELETE (push unsubscribe) is checked the same way.
    let r = root
        .request(
            reqwest::Method::DELETE,
            "/api/notifications/push/unsubscribe",
        )
        .json(&json!({ "endpoint": "https://push.example.com/\u{0}" }))
        .send()
        .await
        .unwrap();
    let body = expect_error(r, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(fields(&body), ["/endpoint"]);

    // Nothing was stored (but the config made above); a backslash followed by the text
    // u0000 is fine.
    assert_eq!(app.sql("SELECT count(*) FROM platform_configs"), "1");
    assert_eq!(app.sql("SELECT count(*) FROM review_tasks"), "0");
    let ok = root
        .patch(
            "/api/notifications/config",
            json!({ "smtpHost": "mail\\u0000.example.com" }),
        )
        .await;
    assert_eq!(ok.status(), StatusCode::OK);
}

#[tokio::test]
async fn date_filters_take_a_plain_date_or_a_timestamp_on_every_route() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    for path in [
        "/api/reviews?startDate=2026-01-01&endDate=2026-12-31",
        "/api/notifications?startDate=2026-01-01&endDate=2026-12-31",
        "/api/notifications/stats?startDate=2026-01-01",
        "/api/health/history?startDate=2026-01-01&endDate=2026-01-31",
        "/api/monitoring/system?startDate=2026-01-01",
        "/api/monitoring/database?startDate=2026-01-01",
        "/api/monitoring/api?startDate=2026-01-01",
        "/api/monitoring/api?startDate=2026-01-01T00:00:00Z",
    ] {
        let r = root.get(path).await;
        assert_eq!(
            r.status(),
            StatusCode::OK,
            "{path}: {}",
            r.text().await.unwrap()
        );
    }
    let body = expect_error(
        root.get("/api/health/history?startDate=01/31/2026").await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUERY",
    )
    .await;
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("startDate")
    );
}

#[tokio::test]
async fn an_explicit_is_default_false_is_honoured_on_a_platforms_first_config() {
    let app = TestApp::spawn().await;
    let gitlab = reviewd_testkit::FakeGitlab::start("glpat-default").await;
    let root = app.root().await;
    let create = |name: &str, is_default: Option<bool>| {
        let mut body = json!({ "name": name, "platformType": "hostA", "baseUrl": gitlab.base_url(),
                               "accessToken": gitlab.token });
        if let Some(d) = is_default {
            body["isDefault"] = json!(d);
        }
        root.post("/api/platform-configs", body)
    };
    let staging = json(create("Staging", Some(false)).await, StatusCode::OK).await;
    assert_eq!(staging["data"]["config"]["isDefault"], false);
    assert_eq!(
        app.sql("SELECT count(*) FROM platform_configs WHERE is_default"),
        "0"
    );
    // Told nothing, a later one is not the default either; told so, it is.
    let later = json(create("Later", None).await, StatusCode::OK).await;
    assert_eq!(later["data"]["config"]["isDefault"], false);
    let prod = json(create("Prod", Some(true)).await, StatusCode::OK).await;
    assert_eq!(prod["data"]["config"]["isDefault"], true);
}

#[tokio::test]
async fn a_manual_review_with_an_unknown_template_is_a_404_naming_the_template() {
    let gitlab = crate::review_pipeline::gitlab_with_one_mr().await;
    let app = TestApp::spawn().await;
    crate::review_pipeline::setup_project(&app, &gitlab).await;
    let project = app.sql("SELECT id FROM projects LIMIT 1");
    let root = app.root().await;
    let body = expect_error(
        root.post(
            "/api/reviews/trigger-manual-review",
            json!({ "projectId": project, "mrIid": 1, "templateId": uuid::Uuid::new_v4() }),
        )
        .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    assert_eq!(body["error"]["message"], "template not found");
    assert_eq!(app.sql("SELECT count(*) FROM review_tasks"), "0");
}

#[tokio::test]
async fn a_runner_result_with_a_rating_that_is_not_a_grade_is_refused() {
    let app = TestApp::spawn().await;
    let key = api_key(&app).await;
    let result = |rating: &str| {
        json!({ "runnerId": "r1", "status": "success", "files": [], "totalComments": 0, "rating": rating,
                "metrics": { "durationMs": 1, "containerPrepareMs": 0, "cloneMs": 0, "reviewMs": 1, "submitMs": 0 } })
    };
    let r = reqwest::Client::new()
        .post(app.url(&format!(
            "/api/runners/tasks/{}/result",
            uuid::Uuid::new_v4()
        )))
        .header("x-api-key", &key)
        .json(&result("Z"))
        .send()
        .await
        .unwrap();
    let body = expect_error(r, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(fields(&body), ["rating"]);
    // A grade passes the check (and the unknown task is then a 404).
    let r = reqwest::Client::new()
        .post(app.url(&format!(
            "/api/runners/tasks/{}/result",
            uuid::Uuid::new_v4()
        )))
        .header("x-api-key", &key)
        .json(&result("B"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_push_subscription_is_answered_200() {
    let app = TestApp::spawn_with(&[("NOTIFY_PUSH_ALLOW_PRIVATE", "true".to_owned())]).await;
    let root = app.root().await;
    let r = root
        .post(
            "/api/notifications/push/subscribe",
            json!({ "endpoint": "https://push.example.com/send/abc", "keys": push_keys() }),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
}

// What Schemathesis found against the API document, each pinned here.

#[tokio::test]
async fn an_empty_or_padded_date_filter_is_malformed() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    for query in [
        "startDate=",
        "startDate=%202026-01-01",
        "endDate=2026-01-01%20",
    ] {
        expect_error(
            root.get(&format!("/api/reviews?{query}")).await,
            StatusCode::BAD_REQUEST,
            "INVALID_QUERY",
        )
        .await;
    }
}

#[tokio::test]
async fn a_page_size_past_32_bits_or_a_bad_alias_is_refused() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    for query in ["perPage=2147483648", "pageSize=5&perPage=false"] {
        expect_error(
            root.get(&format!("/api/users?{query}")).await,
            StatusCode::BAD_REQUEST,
            "INVALID_QUERY",
        )
        .await;
    }
    json(
        root.get("/api/users?pageSize=2147483647").await,
        StatusCode::OK,
    )
    .await;
}

#[tokio::test]
async fn a_whole_number_written_as_a_float_is_that_number() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let cleaned = json(
        root.post("/api/notifications/clean", json!({ "days": 30.0 }))
            .await,
        StatusCode::OK,
    )
    .await;
    assert!(cleaned["data"].is_object(), "{cleaned}");
    expect_error(
        root.post("/api/notifications/clean", json!({ "days": 30.5 }))
            .await,
        StatusCode::BAD_REQUEST,
        "INVALID_BODY",
    )
    .await;
}

#[tokio::test]
async fn urls_the_server_will_call_are_parsed_as_its_client_parses_them() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    // Accepted before as "starts with https://", and stored.
    let body = expect_error(
        root.post(
            "/api/platform-configs",
            json!({ "name": "broken", "platformType": "hostA", "baseUrl": "https://[0", "accessToken": "t" }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert_eq!(fields(&body), ["baseUrl"]);
    let body = expect_error(
        root.patch(
            "/api/notifications/config",
            json!({ "webhookUrls": ["https://[0"], "emailFrom": "a@b.c\t*" }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert_eq!(fields(&body), ["emailFrom", "webhookUrls[0]"]);
    // 127.0.0.1 spelled in hex is still this host: no push subscription to it.
    let body = expect_error(
        root.post(
            "/api/notifications/push/subscribe",
            json!({ "endpoint": "https://0x7f000001/push", "keys": push_keys() }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert!(body.to_string().contains("private"), "{body}");
}

#[tokio::test]
async fn a_push_expiry_past_year_9999_is_refused_not_stored() {
    let app = TestApp::spawn_with(&[("NOTIFY_PUSH_ALLOW_PRIVATE", "true".to_owned())]).await;
    let root = app.root().await;
    expect_error(
        root.post(
            "/api/notifications/push/subscribe",
            json!({ "endpoint": "https://push.example.com/send/abc", "expirationTime": 3_162_240_000_000_000_i64, "keys": push_keys() }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
}

#[tokio::test]
async fn every_presented_credential_must_be_valid() {
    let app = TestApp::spawn().await;
    let key = api_key(&app).await;
    let with_key = app.with_api_key(&key);
    json(with_key.get("/api/auth/me").await, StatusCode::OK).await;
    // A good key beside a stale cookie or a made-up second key is refused.
    for (name, value) in [
        ("cookie", "reviewd_session=made-up"),
        ("x-api-key", "rvd_made_up"),
    ] {
        let r = with_key
            .request(reqwest::Method::GET, "/api/auth/me")
            .header(name, value)
            .send()
            .await
            .unwrap();
        expect_error(r, StatusCode::UNAUTHORIZED, "UNAUTHORIZED").await;
    }
}

#[tokio::test]
async fn a_known_path_with_another_method_is_a_405_with_allow() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    for (path, allow) in [
        ("/api/projects/sync/platform", "POST"),
        ("/api/reviews/trigger-manual-review", "POST"),
        ("/api/api-keys", "GET, POST"),
    ] {
        let r = root
            .request(reqwest::Method::PUT, path)
            .send()
            .await
            .unwrap();
        assert_eq!(r.headers()["allow"].to_str().unwrap(), allow, "{path}");
        expect_error(r, StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED").await;
    }
    // GET of a POST-only path that also fits `GET /api/projects/{id}/platform`.
    let r = root.get("/api/projects/sync/platform").await;
    expect_error(r, StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED").await;
}

#[tokio::test]
async fn an_unsigned_github_delivery_is_a_401_before_anything_is_looked_up() {
    let app = TestApp::spawn().await;
    let r = app
        .client()
        .request(reqwest::Method::POST, "/api/webhook/hostB")
        .header("x-github-event", "ping")
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "UNAUTHORIZED").await;
}

#[tokio::test]
async fn a_template_update_against_the_global_default_rule_is_a_409_not_a_500() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let created = json(
        root.post(
            "/api/reviews/templates",
            json!({ "name": "house style", "content": "Review for our house style.", "isDefault": true }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let default = created["data"]["template"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.sql(
        "INSERT INTO platform_configs (name, platform_type, base_url) VALUES ('G', 'hostA', 'https://gitlab.example.com')",
    );
    let project = app.sql(
        "INSERT INTO projects (platform_config_id, platform_type, platform_project_id, name, full_path, web_url) \
         SELECT id, 'hostA', 1, 'p', 'g/p', 'https://gitlab.example.com/g/p' FROM platform_configs RETURNING id",
    );
    let body = expect_error(
        root.patch(
            &format!("/api/reviews/templates/{default}"),
            json!({ "projectId": project.trim() }),
        )
        .await,
        StatusCode::CONFLICT,
        "CONFLICT",
    )
    .await;
    assert!(body.to_string().contains("global"), "{body}");
}

#[tokio::test]
async fn force_is_true_or_false_and_nothing_else() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let id = app.sql(
        "INSERT INTO platform_configs (name, platform_type, base_url) VALUES ('G', 'hostA', 'https://gitlab.example.com') RETURNING id",
    );
    let body = expect_error(
        root.delete(&format!(
            "/api/platform-configs/{}?force=-2e-229",
            id.trim()
        ))
        .await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUERY",
    )
    .await;
    assert_eq!(fields(&body), ["force"]);
    json(
        root.delete(&format!("/api/platform-configs/{}?force=false", id.trim()))
            .await,
        StatusCode::OK,
    )
    .await;
}

#[tokio::test]
async fn a_name_is_one_readable_line() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    for (path, body, field) in [
        ("/api/api-keys", json!({ "name": "ci\nkey" }), "name"),
        (
            "/api/users",
            json!({ "email": "dev@example.com", "name": "dev\u{7}", "password": "a-long-password-1", "role": "developer" }),
            "name",
        ),
        (
            "/api/reviews/templates",
            json!({ "name": "\t", "content": "Review it." }),
            "name",
        ),
        (
            "/api/reviews/rules",
            json!({ "ruleName": "two\nlines", "instructions": "Check errors." }),
            "ruleName",
        ),
        (
            "/api/platform-configs",
            json!({ "name": "gitlab\u{85}", "platformType": "hostA", "baseUrl": "https://gitlab.example.com", "accessToken": "t" }),
            "name",
        ),
    ] {
        let body = expect_error(
            root.post(path, body).await,
            StatusCode::BAD_REQUEST,
            "VALIDATION_FAILED",
        )
        .await;
        assert_eq!(fields(&body), [field], "{path}");
    }
}

#[tokio::test]
async fn a_heartbeat_out_of_range_names_the_field_as_the_body_does() {
    let app = TestApp::spawn().await;
    let key = api_key(&app).await;
    let body = expect_error(
        app.with_api_key(&key)
            .post(
                "/api/runners/any-runner/heartbeat",
                json!({ "status": "online", "currentJobs": -1 }),
            )
            .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert_eq!(fields(&body), ["currentJobs"]);
}
