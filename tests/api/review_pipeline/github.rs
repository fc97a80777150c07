//! A signed hostB pull request: one review holding every line comment.

use super::{APP_DIFF_1, app_with_ai, fake_ai, review_answer, wait_for};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

#[tokio::test]
async fn a_signed_github_pull_request_gets_one_review_with_all_line_comments() {
    let github = reviewd_testkit::FakeGithub::start("ghp_pipeline").await;
    Mock::given(method("GET"))
        .and(path("/api/v3/user/repos"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!([
            reviewd_testkit::github_repo(186_853_002, "Codertocat/Hello-World")
        ])))
        .mount(&github.server)
        .await;
    let head = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";
    Mock::given(method("GET")).and(path("/api/v3/repos/Codertocat/Hello-World/pulls/2"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "number": 2, "title": "Update the README with new information.", "body": "", "state": "open", "merged_at": null,
            "html_url": "https://github.com/Codertocat/Hello-World/pull/2",
            "head": { "ref": "changes", "sha": head }, "base": { "ref": "master", "sha": "f95f852bd8fca8fcc58a9a2d6c842781e32a215e" },
            "user": { "login": "Codertocat", "id": 21_031_067 }, "draft": false })))
        .mount(&github.server).await;
    Mock::given(method("GET")).and(path("/api/v3/repos/Codertocat/Hello-World/pulls/2/files"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!([{ "filename": "src/app.rs", "status": "modified", "patch": APP_DIFF_1.trim_end() }])))
        .mount(&github.server).await;
    Mock::given(method("POST"))
        .and(path("/api/v3/repos/Codertocat/Hello-World/pulls/2/reviews"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(json!({ "id": 80, "state": "COMMENTED" })),
        )
        .mount(&github.server)
        .await;
    Mock::given(method("POST"))
        .and(path(
            "/api/v3/repos/Codertocat/Hello-World/issues/2/comments",
        ))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({ "id": 555 })))
        .mount(&github.server)
        .await;
    let ai = fake_ai(review_answer).await;
    let app = app_with_ai(&ai, &[]).await;
    let config = crate::helpers::create_github_config(&app, &github).await;
    super::sync_projects(&app, &config).await;

    let task = wait_for(&app, &super::send_pull_request(&app, None, None).await).await;
    assert_eq!(task["status"], "completed", "{task}");

    let reviews: Vec<Value> = github
        .requests()
        .await
        .into_iter()
        .filter(|r| r.method.as_str() == "POST" && r.url.path().ends_with("/pulls/2/reviews"))
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    assert_eq!(reviews.len(), 1, "one review holds every line comment");
    assert_eq!(reviews[0]["commit_id"], head);
    let lines: Vec<u64> = reviews[0]["comments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert!(
        lines.iter().all(|l| *l == 2),
        "comments land on the added line"
    );
    assert!(
        reviews[0]["comments"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["side"] == "RIGHT" && c["path"] == "src/app.rs")
    );
    let summary = github
        .requests()
        .await
        .into_iter()
        .find(|r| r.url.path().ends_with("/issues/2/comments"))
        .expect("summary comment");
    let summary: Value = serde_json::from_slice(&summary.body).unwrap();
    assert!(summary["body"].as_str().unwrap().contains("rating B"));
}
