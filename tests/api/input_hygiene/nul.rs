//! A NUL character anywhere is a 400 naming the field.

use super::*;

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
