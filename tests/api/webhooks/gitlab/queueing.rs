//! A real GitLab merge request event queues one review; a newer push supersedes it; events not
//! acted on are acknowledged.

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
