//! GitLab's webhook events: what queues a review, what is acknowledged and left, tokens and
//! bodies checked in order.

use super::*;

#[tokio::test]
async fn a_real_gitlab_merge_request_open_queues_one_review() {
    let (app, _, _) = gitlab_app().await;
    let body = fixture("hostA", "merge_request");
    let r = json(
        post_gitlab_webhook(&app, Some("hook-secret-a"), Some("d-1"), &body).await,
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
        post_gitlab_webhook(&app, Some("hook-secret-a"), Some("d-1"), &body).await,
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
        post_gitlab_webhook(&app, Some("hook-secret-a"), Some("d-2"), &body).await,
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
        post_gitlab_webhook(&app, Some("hook-secret-a"), None, &body).await,
        StatusCode::OK,
    )
    .await["data"]["taskId"]
        .clone();
    body["object_attributes"]["action"] = json!("update");
    body["object_attributes"]["oldrev"] = json!("da1560886d4f094c3e6c9ef40349f7d38b5d27d7");
    body["object_attributes"]["last_commit"]["id"] =
        json!("1111111111111111111111111111111111111111");
    let second = json(
        post_gitlab_webhook(&app, Some("hook-secret-a"), None, &body).await,
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
            post_gitlab_webhook(&app, Some("hook-secret-a"), None, &body).await,
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
        post_gitlab_webhook(&app, None, None, &body).await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    )
    .await;
    expect_error(
        post_gitlab_webhook(&app, Some("hook-secret-b"), None, &body).await,
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
        post_gitlab_webhook(&app, Some("hook-secret-a"), None, &no_iid).await,
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
            post_gitlab_webhook(&app, Some("hook-secret-a"), None, &odd).await,
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
        post_gitlab_webhook(
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
        post_gitlab_webhook(&app, Some("hook-secret-a"), None, &note).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(r["data"]["status"], "queued");
    let listed = tasks(&app).await;
    assert_eq!(listed[0]["triggeredBy"], "manual");
    note["object_attributes"]["note"] = json!("Just a remark.");
    let r = json(
        post_gitlab_webhook(&app, Some("hook-secret-a"), None, &note).await,
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
        post_gitlab_webhook(&app, Some("hook-secret-a"), Some("d-9"), &body).await,
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
        post_gitlab_webhook(&app, Some("hook-secret-a"), Some("d-9"), &body).await,
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
