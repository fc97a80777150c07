//! No input makes a 5xx: NUL and control characters anywhere a client can put them are
//! 400s naming where they were, and the defects found by hand have their regression
//! tests here (issue 13).

use crate::helpers::{TestApp, expect_error, json};
use crate::runners::api_key;
use reqwest::StatusCode;
use serde_json::{Value, json};

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

    // A webhook whose project path (or head SHA) carries a NUL.
    let mut hook = crate::review_pipeline::fixture();
    hook["project"]["path_with_namespace"] = json!("group/svc\u{0}");
    let r = anonymous
        .post(app.url("/api/webhook/hostA"))
        .header("X-Gitlab-Token", "anything")
        .json(&hook)
        .send()
        .await
        .unwrap();
    let body = expect_error(r, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(fields(&body), ["/project/path_with_namespace"]);
    // The same body declared as something else than JSON, with a valid token (so it
    // reaches the receiver), and the NUL in the head SHA.
    let gitlab = reviewd_testkit::FakeGitlab::start("glpat-hygiene").await;
    crate::helpers::create_host_a_config(&app, &gitlab).await;
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
            json!({ "endpoint": "https://push.example.com/send/abc", "keys": {
                "p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM",
                "auth": "tBHItJI5svbpez7KI4CCXg" } }),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
}
