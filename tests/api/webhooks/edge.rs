//! What both receivers share: hostile bodies are 4xx and queue nothing; a config changed on one
//! replica counts on every replica's next webhook.

use super::*;

/// Bodies no platform sends: every one a 4xx on both receivers, nothing queued,
/// and the server answers normally afterwards.
#[tokio::test]
async fn hostile_webhook_bodies_are_4xx_and_queue_nothing() {
    let (app, _, _) = gitlab_app().await;
    let github = FakeGithub::start("ghp_hostile").await;
    create_github_config(&app, &github).await;

    let mr = serde_json::to_vec(&fixture("hostA", "merge_request")).unwrap();
    let pr = serde_json::to_vec(&fixture("hostB", "pull_request.opened")).unwrap();
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n)).into_bytes();
    let mut big = br#"{"object_kind":"merge_request","padding":""#.to_vec();
    big.extend(std::iter::repeat_n(b'x', 10_000_000));
    big.extend(br#""}"#);
    let mut invalid_utf8 = mr.clone();
    let at = invalid_utf8.iter().position(|b| *b == b'"').unwrap() + 1;
    invalid_utf8.splice(at..at, [0xff, 0xfe, 0xc3]);
    let with_nul = String::from_utf8(mr.clone())
        .unwrap()
        .replacen("\"iid\":", "\"title_nul\":\"a\\u0000b\",\"iid\":", 1)
        .into_bytes();
    let huge_iid = String::from_utf8(pr.clone())
        .unwrap()
        .replace("\"number\":2,", "\"number\":99999999999999999999999,")
        .into_bytes();
    let hostile: Vec<(&str, Vec<u8>)> = vec![
        ("truncated", mr[..mr.len() / 2].to_vec()),
        ("empty", Vec::new()),
        ("100k levels of nesting", deep(100_000)),
        ("10 MB of padding", big),
        ("invalid UTF-8", invalid_utf8),
        ("a NUL in a field", with_nul),
        ("an iid past i64", huge_iid),
    ];
    let client = reqwest::Client::new();
    for (what, body) in &hostile {
        let a = client
            .post(app.url("/api/webhook/hostA"))
            .header("content-type", "application/json")
            .header("X-Gitlab-Token", "hook-secret-a")
            .header("X-Gitlab-Event", "Merge Request Hook")
            .body(body.clone())
            .send()
            .await
            .unwrap();
        let b = post_github_webhook(&app, Some("pull_request"), Some("hook-secret-b"), body).await;
        for (platform, status) in [("hostA", a.status()), ("hostB", b.status())] {
            assert!(status.is_client_error(), "{platform}, {what}: {status}");
        }
    }
    assert!(tasks(&app).await.is_empty(), "nothing was queued");
    let health = app.client().get("/api/health").await;
    assert!(health.status().is_success(), "{}", health.status());
}

/// Webhooks read configs and projects from memory (store-postgres `cache.rs`): a
/// change on the replica that made it counts from its next webhook, and on the other
/// replicas as soon as PostgreSQL's notification reaches them (well within the 300 ms
/// waited here; their backstop would be 5 s).
#[tokio::test]
async fn a_change_on_one_replica_reaches_every_replicas_next_webhook() {
    let (app, _, config) = gitlab_app().await;
    let second = TestApp::spawn_sharing(&app, &[]).await;
    let mut body = fixture("hostA", "merge_request");
    let mut send = async |replica: &TestApp, head: u64, secret: &str| {
        body["object_attributes"]["last_commit"]["id"] = json!(format!("{head:040x}"));
        post_gitlab_webhook(replica, Some(secret), None, &body).await
    };
    // Both replicas have read the project and the configs.
    for (head, replica) in [(1, &app), (2, &second)] {
        let r = json(send(replica, head, "hook-secret-a").await, StatusCode::OK).await;
        assert_eq!(r["data"]["status"], "queued");
    }

    let project = app.sql("SELECT id FROM projects LIMIT 1");
    let root = app.root().await;
    json(
        root.patch(
            &format!("/api/projects/{project}"),
            json!({ "enabled": false }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let here = json(send(&app, 3, "hook-secret-a").await, StatusCode::OK).await;
    assert_eq!(here["data"]["status"], "ignored", "{here}");
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let there = json(send(&second, 4, "hook-secret-a").await, StatusCode::OK).await;
    assert_eq!(there["data"]["status"], "ignored", "{there}");
    assert!(
        there["data"]["message"]
            .as_str()
            .unwrap()
            .contains("disabled")
    );

    // A new webhook secret, typed on the second replica: the first refuses the old one.
    json(
        second
            .root()
            .await
            .patch(
                &format!("/api/platform-configs/{config}"),
                json!({ "webhookSecret": "hook-secret-b" }),
            )
            .await,
        StatusCode::OK,
    )
    .await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    expect_error(
        send(&app, 5, "hook-secret-a").await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    )
    .await;
    let accepted = json(send(&app, 6, "hook-secret-b").await, StatusCode::OK).await;
    assert_eq!(accepted["data"]["status"], "ignored", "{accepted}");
    assert_eq!(tasks(&app).await.len(), 2, "only the two before the change");
}
