//! The webhook receivers with real GitLab/GitHub payloads.

use crate::helpers::{TestApp, create_host_a_config, create_host_b_config, expect_error, json};
use reqwest::StatusCode;
use reviewd_crypto::hmac_sha256_hex;
use reviewd_testkit::{FakeGithub, FakeGitlab, github_repo};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

fn fixture(platform: &str, name: &str) -> Value {
    let file = format!(
        "{}/fixtures/webhooks/{platform}/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

async fn post_host_a(
    app: &TestApp,
    token: Option<&str>,
    delivery: Option<&str>,
    body: &Value,
) -> reqwest::Response {
    let mut r = reqwest::Client::new()
        .post(app.url("/api/webhook/hostA"))
        .json(body);
    if let Some(t) = token {
        r = r.header("X-Gitlab-Token", t);
    }
    if let Some(d) = delivery {
        r = r.header("X-Gitlab-Event-UUID", d);
    }
    r.send().await.unwrap()
}

async fn post_host_b(
    app: &TestApp,
    event: Option<&str>,
    secret: Option<&str>,
    body: &[u8],
) -> reqwest::Response {
    let mut r = reqwest::Client::new()
        .post(app.url("/api/webhook/hostB"))
        .header("content-type", "application/json")
        .body(body.to_vec());
    if let Some(e) = event {
        r = r.header("X-GitHub-Event", e);
    }
    if let Some(s) = secret {
        r = r.header(
            "X-Hub-Signature-256",
            format!("sha256={}", hmac_sha256_hex(s.as_bytes(), body)),
        );
    }
    r.send().await.unwrap()
}

/// An app with the fixture's GitLab project (id 1) synced under a config whose
/// webhook secret is `hook-secret-a`.
async fn gitlab_app() -> (TestApp, FakeGitlab, String) {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start("glpat-hooks").await;
    gitlab.with_projects(1, "svc").await;
    let config = create_host_a_config(&app, &gitlab).await;
    crate::review_pipeline::sync_projects(&app, &config).await;
    (app, gitlab, config)
}

async fn tasks(app: &TestApp) -> Vec<Value> {
    json(
        app.root()
            .await
            .get("/api/reviews/tasks?pageSize=100")
            .await,
        StatusCode::OK,
    )
    .await["data"]["items"]
        .as_array()
        .unwrap()
        .clone()
}

#[tokio::test]
async fn a_real_gitlab_merge_request_open_queues_one_review() {
    let (app, _, _) = gitlab_app().await;
    let body = fixture("hostA", "merge_request");
    let r = json(
        post_host_a(&app, Some("hook-secret-a"), Some("d-1"), &body).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(r["data"]["received"], true);
    assert_eq!(r["data"]["status"], "queued");
    let task_id = r["data"]["taskId"].as_str().unwrap().to_owned();

    let listed = tasks(&app).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["id"], task_id.as_str());
    assert_eq!(listed[0]["status"], "queued");
    assert_eq!(
        (listed[0]["mrIid"].clone(), listed[0]["triggeredBy"].clone()),
        (json!(1), json!("auto"))
    );
    assert_eq!(
        listed[0]["headSha"],
        "da1560886d4f094c3e6c9ef40349f7d38b5d27d7"
    );

    // The same delivery again, then the same head under a new delivery id: no second task.
    let again = json(
        post_host_a(&app, Some("hook-secret-a"), Some("d-1"), &body).await,
        StatusCode::OK,
    )
    .await;
    assert!(
        again["data"]["message"]
            .as_str()
            .unwrap()
            .contains("duplicate delivery")
    );
    let same_head = json(
        post_host_a(&app, Some("hook-secret-a"), Some("d-2"), &body).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(same_head["data"]["status"], "duplicate");
    assert_eq!(same_head["data"]["taskId"], task_id.as_str());
    assert_eq!(tasks(&app).await.len(), 1);
}

#[tokio::test]
async fn a_newer_push_supersedes_the_queued_review_of_the_older_head() {
    let (app, _, _) = gitlab_app().await;
    let mut body = fixture("hostA", "merge_request");
    let first = json(
        post_host_a(&app, Some("hook-secret-a"), None, &body).await,
        StatusCode::OK,
    )
    .await["data"]["taskId"]
        .clone();
    body["object_attributes"]["action"] = json!("update");
    body["object_attributes"]["oldrev"] = json!("da1560886d4f094c3e6c9ef40349f7d38b5d27d7");
    body["object_attributes"]["last_commit"]["id"] =
        json!("1111111111111111111111111111111111111111");
    let second = json(
        post_host_a(&app, Some("hook-secret-a"), None, &body).await,
        StatusCode::OK,
    )
    .await["data"]["taskId"]
        .clone();
    assert_ne!(first, second);
    let listed = tasks(&app).await;
    let status = |id: &Value| listed.iter().find(|t| &t["id"] == id).unwrap()["status"].clone();
    assert_eq!(
        (status(&first), status(&second)),
        (json!("superseded"), json!("queued"))
    );
}

#[tokio::test]
async fn gitlab_events_not_acted_on_are_acknowledged() {
    let (app, _, _) = gitlab_app().await;
    let mut assignment_only = fixture("hostA", "merge_request");
    assignment_only["object_attributes"]["action"] = json!("update");
    assignment_only["changes"] =
        json!({ "assignees": { "previous": [], "current": [{ "id": 3 }] }, "updated_at": {} });
    let mut unknown_project = fixture("hostA", "merge_request");
    unknown_project["project"]["id"] = json!(999);
    let mut closed = fixture("hostA", "merge_request");
    closed["object_attributes"]["action"] = json!("close");
    for (body, expected) in [
        (assignment_only, "assignees or reviewers"),
        (unknown_project, "not synced"),
        (closed, "close"),
        (
            json!({ "object_kind": "push", "project": { "id": 1 } }),
            "push",
        ),
    ] {
        let r = json(
            post_host_a(&app, Some("hook-secret-a"), None, &body).await,
            StatusCode::OK,
        )
        .await;
        assert_eq!(r["data"]["received"], true);
        assert_eq!(r["data"]["status"], "ignored");
        assert!(
            r["data"]["message"].as_str().unwrap().contains(expected),
            "{r}"
        );
    }
    assert!(tasks(&app).await.is_empty());
}

#[tokio::test]
async fn gitlab_tokens_and_bodies_are_checked_in_order() {
    let (app, _, _) = gitlab_app().await;
    let body = fixture("hostA", "merge_request");
    expect_error(
        post_host_a(&app, None, None, &body).await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    )
    .await;
    expect_error(
        post_host_a(&app, Some("hook-secret-b"), None, &body).await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    )
    .await;
    let bad_json = reqwest::Client::new()
        .post(app.url("/api/webhook/hostA"))
        .header("X-HostA-Token", "hook-secret-a")
        .body("{not json")
        .send()
        .await
        .unwrap();
    expect_error(bad_json, StatusCode::BAD_REQUEST, "INVALID_PAYLOAD").await;
    let mut no_iid = body.clone();
    no_iid["object_attributes"]
        .as_object_mut()
        .unwrap()
        .remove("iid");
    let r = expect_error(
        post_host_a(&app, Some("hook-secret-a"), None, &no_iid).await,
        StatusCode::BAD_REQUEST,
        "INVALID_PAYLOAD",
    )
    .await;
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("object_attributes.iid")
    );
    // Numbers no merge request has: refused before anything is queued.
    for bad in [
        json!(0),
        json!(-3),
        json!(1.5),
        json!(9_223_372_036_854_775_808_u64),
        json!(1e30),
        json!("7"),
    ] {
        let mut odd = body.clone();
        odd["object_attributes"]["iid"] = bad.clone();
        let r = expect_error(
            post_host_a(&app, Some("hook-secret-a"), None, &odd).await,
            StatusCode::BAD_REQUEST,
            "INVALID_PAYLOAD",
        )
        .await;
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("object_attributes.iid"),
            "{bad}: {r}"
        );
    }
    assert!(
        tasks(&app).await.is_empty(),
        "nothing was queued by refused deliveries"
    );
}

#[tokio::test]
async fn review_commands_run_even_with_auto_review_off_and_open_assigns() {
    let (app, gitlab, _) = gitlab_app().await;
    let root = app.root().await;
    let project =
        json(root.get("/api/projects").await, StatusCode::OK).await["data"]["items"][0]["id"]
            .as_str()
            .unwrap()
            .to_owned();
    json(
        root.patch(
            &format!("/api/projects/{project}"),
            json!({ "autoReview": false, "autoAssignAuthor": true, "defaultReviewerIds": ["12"] }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    Mock::given(method("PUT"))
        .and(path("/api/v4/projects/1/merge_requests/1"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({})))
        .mount(&gitlab.server)
        .await;

    let open = json(
        post_host_a(
            &app,
            Some("hook-secret-a"),
            None,
            &fixture("hostA", "merge_request"),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert!(
        open["data"]["message"]
            .as_str()
            .unwrap()
            .contains("auto-review is off")
    );
    // The assignment runs in the background; give it a moment.
    let mut assigned = None;
    for _ in 0..50 {
        assigned = gitlab
            .requests()
            .await
            .into_iter()
            .find(|r| r.method.as_str() == "PUT");
        if assigned.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let body = FakeGitlab::params(&assigned.expect("author assigned"));
    assert_eq!(body, json!({ "assignee_ids": [51], "reviewer_ids": [12] }));

    let mut note = fixture("hostA", "note_merge_request");
    note["project"]["id"] = json!(1);
    note["object_attributes"]["note"] = json!("Looks odd.\n/review");
    let r = json(
        post_host_a(&app, Some("hook-secret-a"), None, &note).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(r["data"]["status"], "queued");
    let listed = tasks(&app).await;
    assert_eq!(listed[0]["triggeredBy"], "manual");
    note["object_attributes"]["note"] = json!("Just a remark.");
    let r = json(
        post_host_a(&app, Some("hook-secret-a"), None, &note).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(r["data"]["status"], "ignored");
}

#[tokio::test]
async fn a_queue_failure_is_a_500_and_the_delivery_stays_retryable() {
    let (app, _, _) = gitlab_app().await;
    // Break the stream: a plain string where the stream should be makes XADD fail.
    let pool = reviewd_queue_redis::connect(
        &reviewd_testkit::test_redis_url(),
        std::time::Duration::from_secs(5),
    )
    .await
    .unwrap();
    let mut conn = pool.get().await.unwrap();
    let key = format!("{}review-tasks", app.queue_prefix);
    let _: () = deadpool_redis::redis::cmd("DEL")
        .arg(&key)
        .query_async(&mut conn)
        .await
        .unwrap();
    let _: () = deadpool_redis::redis::cmd("SET")
        .arg(&key)
        .arg("broken")
        .query_async(&mut conn)
        .await
        .unwrap();

    let body = fixture("hostA", "merge_request");
    expect_error(
        post_host_a(&app, Some("hook-secret-a"), Some("d-9"), &body).await,
        StatusCode::INTERNAL_SERVER_ERROR,
        "QUEUE_UNAVAILABLE",
    )
    .await;
    let listed = tasks(&app).await;
    assert_eq!(listed[0]["status"], "failed");
    assert!(
        listed[0]["errorMessage"]
            .as_str()
            .unwrap()
            .contains("could not be queued")
    );
    // The platform's retry of the same delivery is processed again, not dropped as a duplicate.
    expect_error(
        post_host_a(&app, Some("hook-secret-a"), Some("d-9"), &body).await,
        StatusCode::INTERNAL_SERVER_ERROR,
        "QUEUE_UNAVAILABLE",
    )
    .await;
    let _: () = deadpool_redis::redis::cmd("DEL")
        .arg(&key)
        .query_async(&mut conn)
        .await
        .unwrap();
}

#[tokio::test]
async fn github_signatures_are_verified_against_each_config() {
    let app = TestApp::spawn().await;
    let body = serde_json::to_vec(&fixture("hostB", "pull_request.opened")).unwrap();
    expect_error(
        post_host_b(&app, Some("pull_request"), Some("any"), &body).await,
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
    let config = create_host_b_config(&app, &github).await;
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
        post_host_b(&app, None, Some("hook-secret-b"), &body).await,
        StatusCode::BAD_REQUEST,
        "MISSING_EVENT_HEADER",
    )
    .await;
    expect_error(
        post_host_b(&app, Some("pull_request"), None, &body).await,
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
        post_host_b(&app, Some("pull_request"), Some("hook-secret-b"), &body).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(ok["data"]["status"], "queued");
    let other_secret = json(
        post_host_b(&app, Some("pull_request"), Some("second-secret"), &body).await,
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
        post_host_b(
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
        post_host_b(&app, Some("issue_comment"), Some("hook-secret-b"), &comment).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(r["data"]["status"], "ignored");
    let synchronize = serde_json::to_vec(&fixture("hostB", "pull_request.synchronize")).unwrap();
    let r = json(
        post_host_b(
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
        post_host_b(&app, Some("pull_request"), Some("hook-secret-b"), b"[1,2").await,
        StatusCode::BAD_REQUEST,
        "INVALID_PAYLOAD",
    )
    .await;
}

/// Bodies no platform sends: every one a 4xx on both receivers, nothing queued,
/// and the server answers normally afterwards.
#[tokio::test]
async fn hostile_webhook_bodies_are_4xx_and_queue_nothing() {
    let (app, _, _) = gitlab_app().await;
    let github = FakeGithub::start("ghp_hostile").await;
    create_host_b_config(&app, &github).await;

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
        let b = post_host_b(&app, Some("pull_request"), Some("hook-secret-b"), body).await;
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
        post_host_a(replica, Some(secret), None, &body).await
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
