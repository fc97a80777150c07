//! GitHub's webhook signatures, verified against each config.

use super::*;

#[tokio::test]
async fn github_signatures_are_verified_against_each_config() {
    let app = TestApp::spawn().await;
    let body = serde_json::to_vec(&fixture("hostB", "pull_request.opened")).unwrap();
    expect_error(
        post_github_webhook(&app, Some("pull_request"), Some("any"), &body).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;

    let github = FakeGithub::start("ghp_hooks").await;
    Mock::given(method("GET"))
        .and(path("/api/v3/user/repos"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!([github_repo(186_853_002, "Codertocat/Hello-World")])),
        )
        .mount(&github.server)
        .await;
    let config = create_github_config(&app, &github).await;
    let root = app.root().await;
    json(
        root.post(
            "/api/projects/sync/platform",
            json!({ "platformConfigId": config }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    // A second config with another secret: the signature may match either.
    let other = FakeGithub::start("ghp_other").await;
    json(
        root.post("/api/platform-configs", json!({ "name": "GH2", "platformType": "hostB", "baseUrl": other.base_url(), "accessToken": "ghp_other", "webhookSecret": "second-secret" })).await,
        StatusCode::OK,
    )
    .await;

    expect_error(
        post_github_webhook(&app, None, Some("hook-secret-b"), &body).await,
        StatusCode::BAD_REQUEST,
        "MISSING_EVENT_HEADER",
    )
    .await;
    expect_error(
        post_github_webhook(&app, Some("pull_request"), None, &body).await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    )
    .await;
    // A signature off by one byte.
    let mut sig = hmac_sha256_hex(b"hook-secret-b", &body);
    let last = sig.pop().unwrap();
    sig.push(if last == '0' { '1' } else { '0' });
    let forged = reqwest::Client::new()
        .post(app.url("/api/webhook/hostB"))
        .header("X-GitHub-Event", "pull_request")
        .header("X-Hub-Signature-256", format!("sha256={sig}"))
        .body(body.clone())
        .send()
        .await
        .unwrap();
    expect_error(forged, StatusCode::UNAUTHORIZED, "UNAUTHORIZED").await;
    // The body changed after signing.
    let mut tampered = body.clone();
    tampered.push(b' ');
    let r = reqwest::Client::new()
        .post(app.url("/api/webhook/hostB"))
        .header("X-GitHub-Event", "pull_request")
        .header(
            "X-Hub-Signature-256",
            format!("sha256={}", hmac_sha256_hex(b"hook-secret-b", &body)),
        )
        .body(tampered)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "UNAUTHORIZED").await;
    assert!(tasks(&app).await.is_empty());

    let ok = json(
        post_github_webhook(&app, Some("pull_request"), Some("hook-secret-b"), &body).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(ok["data"]["status"], "queued");
    let other_secret = json(
        post_github_webhook(&app, Some("pull_request"), Some("second-secret"), &body).await,
        StatusCode::OK,
    )
    .await;
    assert!(
        other_secret["data"]["message"]
            .as_str()
            .unwrap()
            .contains("not synced"),
        "the repo belongs to the first config only: {other_secret}"
    );
    let ping = json(
        post_github_webhook(
            &app,
            Some("ping"),
            Some("hook-secret-b"),
            b"{\"zen\":\"Keep it simple.\"}",
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(ping["data"]["message"], "pong");
    let comment = serde_json::to_vec(&fixture("hostB", "issue_comment.created")).unwrap();
    let r = json(
        post_github_webhook(&app, Some("issue_comment"), Some("hook-secret-b"), &comment).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(r["data"]["status"], "ignored");
    let synchronize = serde_json::to_vec(&fixture("hostB", "pull_request.synchronize")).unwrap();
    let r = json(
        post_github_webhook(
            &app,
            Some("pull_request"),
            Some("hook-secret-b"),
            &synchronize,
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        r["data"]["status"], "duplicate",
        "same head as the opened event"
    );
    expect_error(
        post_github_webhook(&app, Some("pull_request"), Some("hook-secret-b"), b"[1,2").await,
        StatusCode::BAD_REQUEST,
        "INVALID_PAYLOAD",
    )
    .await;
}
