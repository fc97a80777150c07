//! Review commands run with auto-review off; an opened MR is assigned.

use super::*;

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
