//! A hostA webhook to placed comments, then a second push reviewed as a differential round.

use super::{
    APP_DIFF_1, APP_DIFF_2, HEAD_1, HEAD_2, app_with_ai, fake_ai, file, fixture, mount_mr,
    mount_posting, posted, review_answer, send_webhook, setup_project, wait_for,
};
use crate::helpers::json;
use reqwest::StatusCode;
use reviewd_testkit::FakeGitlab;
use serde_json::json;
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, ResponseTemplate};

#[tokio::test]
async fn a_webhook_leads_to_placed_comments_and_a_second_push_to_a_differential_round() {
    let gitlab = FakeGitlab::start("glpat-pipeline").await;
    gitlab.with_projects(1, "svc").await;
    mount_posting(&gitlab).await;
    mount_mr(
        &gitlab,
        HEAD_1,
        json!([
            file("src/app.rs", APP_DIFF_1),
            file("Cargo.lock", "@@ -1 +1 @@\n-a\n+b\n"),
            file("logo.png", "")
        ]),
        5,
    )
    .await;
    let ai = fake_ai(review_answer).await;
    let app = app_with_ai(&ai, &[]).await;
    setup_project(&app, &gitlab).await;

    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    assert_eq!(task["status"], "completed", "{task}");
    assert!(task["reviewId"].is_string());

    let discussions = posted(&gitlab, "POST", "/discussions").await;
    let mut lines: Vec<u64> = discussions
        .iter()
        .map(|d| d["position"]["new_line"].as_u64().unwrap())
        .collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        vec![2, 2],
        "line 3 is context: moved to the added line 2; line 99 is outside the diff and dropped"
    );
    assert!(
        discussions
            .iter()
            .all(|d| d["position"]["new_path"] == "src/app.rs"
                && d["position"]["head_sha"] == HEAD_1)
    );
    assert!(discussions.iter().any(|d| {
        d["body"]
            .as_str()
            .unwrap()
            .contains("**error**: unwrap() panics")
    }));
    let notes = posted(&gitlab, "POST", "/notes").await;
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0]["body"]
            .as_str()
            .unwrap()
            .contains("rating B (84/100)"),
        "{}",
        notes[0]["body"]
    );
    let ai_prompts = reviewd_testkit::file_prompts(&ai).await;
    assert_eq!(
        ai_prompts.len(),
        1,
        "Cargo.lock is ignored and logo.png has no text diff"
    );
    assert!(
        ai_prompts[0].contains("    2 +    let x = foo().unwrap();"),
        "new-side line numbers in the prompt"
    );

    // A second push: only what changed since HEAD_1 is reviewed, nothing is posted twice,
    // and the summary is edited in place.
    mount_mr(
        &gitlab,
        HEAD_2,
        json!([
            file("src/app.rs", APP_DIFF_2),
            file("Cargo.lock", "@@ -1 +1 @@\n-a\n+b\n")
        ]),
        1,
    )
    .await;
    Mock::given(method("GET")).and(path_regex("^/api/v4/projects/1/repository/compare$"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({ "diffs": [file("src/app.rs", "@@ -3,0 +4,2 @@\n+    let y = bar();\n+    drop(y);\n")] })))
        .mount(&gitlab.server).await;
    let mut push = fixture();
    push["object_attributes"]["action"] = json!("update");
    push["object_attributes"]["oldrev"] = json!(HEAD_1);
    push["object_attributes"]["last_commit"]["id"] = json!(HEAD_2);
    let second = wait_for(&app, &send_webhook(&app, &push).await).await;
    assert_eq!(second["status"], "completed");
    assert_eq!(
        second["reviewId"], task["reviewId"],
        "rounds accumulate on one review"
    );

    let discussions = posted(&gitlab, "POST", "/discussions").await;
    assert_eq!(
        discussions.len(),
        3,
        "only the new remark is posted in round 2"
    );
    assert_eq!(discussions[2]["position"]["new_line"], 4);
    assert_eq!(discussions[2]["position"]["head_sha"], HEAD_2);
    assert_eq!(
        posted(&gitlab, "POST", "/notes").await.len(),
        1,
        "no second summary comment"
    );
    let edits = posted(&gitlab, "PUT", "/notes/301").await;
    assert_eq!(edits.len(), 1);
    assert!(edits[0]["body"].as_str().unwrap().contains("Round 2"));
    let review_id = task["reviewId"].as_str().unwrap().to_owned();
    let root = app.root().await;
    let detail = json(
        root.get(&format!("/api/reviews/{review_id}")).await,
        StatusCode::OK,
    )
    .await;
    let review = &detail["data"]["review"];
    assert_eq!(
        (review["status"].clone(), review["roundNumber"].clone()),
        (json!("completed"), json!(2))
    );
    assert_eq!(review["headCommitSha"], HEAD_2);
    assert_eq!(review["commentCount"], 3);
    assert_eq!(review["triggeredBy"], "auto");
    assert_eq!(
        (review["aiProvider"].clone(), review["aiModel"].clone()),
        (json!("providerA"), json!("fake-model"))
    );
    let list = json(
        root.get("/api/reviews?status=completed").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(list["data"]["items"][0]["id"], review_id.as_str());
    assert_eq!(list["data"]["stats"]["completed"], 1);
    assert_eq!(list["meta"]["pagination"]["total"], 1);
    let comments = json(
        root.get(&format!("/api/reviews/{review_id}/comments?severity=error"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(comments["meta"]["pagination"]["total"], 1);
    assert_eq!(comments["data"]["items"][0]["hostADiscussionId"], "disc-2");
    assert_eq!(comments["data"]["items"][0]["lineNumber"], 2);
    let rounds = json(
        root.get(&format!("/api/reviews/{review_id}/rounds")).await,
        StatusCode::OK,
    )
    .await;
    let rounds = rounds["data"]["rounds"].as_array().unwrap().clone();
    assert_eq!(rounds.len(), 2);
    assert_eq!(
        (
            rounds[0]["isDifferential"].clone(),
            rounds[1]["isDifferential"].clone()
        ),
        (json!(false), json!(true))
    );
    let files = json(
        root.get(&format!("/api/reviews/{review_id}/files")).await,
        StatusCode::OK,
    )
    .await;
    let statuses: Vec<(String, String)> = files["data"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["filePath"].as_str().unwrap().to_owned(),
                f["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        vec![
            ("Cargo.lock".to_owned(), "skipped".to_owned()),
            ("src/app.rs".to_owned(), "completed".to_owned())
        ]
    );
    let progress = json(
        root.get(&format!("/api/reviews/{review_id}/files/progress"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        (
            progress["data"]["completed"].clone(),
            progress["data"]["total"].clone()
        ),
        (json!(2), json!(2))
    );
    let logs = json(
        root.get(&format!("/api/reviews/{review_id}/ai-logs?status=success"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        logs["meta"]["pagination"]["total"], 2,
        "per round, one call for the file; a one-file MR's note is the file's own summary"
    );
    assert_eq!(logs["data"]["items"][0]["totalTokens"], 120);
    // Retrying a file re-asks the model; what was already said is not posted again.
    let app_file = files["data"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["filePath"] == "src/app.rs")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let before = posted(&gitlab, "POST", "/discussions").await.len();
    let retried = json(
        root.post(
            &format!("/api/reviews/{review_id}/files/{app_file}/retry"),
            json!({}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(retried["data"]["newComments"], 0);
    assert_eq!(retried["data"]["file"]["status"], "completed");
    assert_eq!(posted(&gitlab, "POST", "/discussions").await.len(), before);
    let viewer = app.user_with_role("viewer").await;
    crate::helpers::expect_error(
        viewer
            .post(
                &format!("/api/reviews/{review_id}/files/{app_file}/retry"),
                json!({}),
            )
            .await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    crate::helpers::expect_error(
        root.post(
            &format!(
                "/api/reviews/{review_id}/files/{}/retry",
                uuid::Uuid::new_v4()
            ),
            json!({}),
        )
        .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;

    crate::helpers::expect_error(
        root.get(&format!("/api/reviews/{}/comments", uuid::Uuid::new_v4()))
            .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    crate::helpers::expect_error(
        root.get("/api/reviews?status=done").await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUERY",
    )
    .await;
    crate::helpers::expect_error(
        root.get("/api/reviews?startDate=yesterday").await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUERY",
    )
    .await;
    let compare = gitlab
        .requests()
        .await
        .into_iter()
        .find(|r| r.url.path().ends_with("/repository/compare"))
        .unwrap();
    assert!(
        compare
            .url
            .query()
            .unwrap()
            .contains(&format!("from={HEAD_1}"))
            && compare
                .url
                .query()
                .unwrap()
                .contains(&format!("to={HEAD_2}"))
    );
}
