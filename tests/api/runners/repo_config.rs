//! `.reviewd.yml` on the runner path: the server reads the file at the head when a
//! runner claims the task, so the claim already leaves out ignored files and carries
//! the file's rules and language; `minSeverity` is applied to the runner's result.

use super::{api_key, register, result_body};
use crate::helpers::{TestApp, json};
use crate::review_pipeline::{
    APP_DIFF_1, HEAD_1, file, fixture, gitlab_with_one_mr, mount_mr, posted, send_webhook,
    setup_project,
};
use reqwest::StatusCode;
use serde_json::json;
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, ResponseTemplate};

const CONFIG: &str = "ignore: [\"docs/**\"]\nrules:\n  - name: Errors\n    paths: [\"src/**\"]\n    instructions: Never unwrap.\nminSeverity: error\nlanguage: German\n";

#[tokio::test]
async fn a_runner_gets_the_files_rules_and_language_of_the_file_and_its_result_is_filtered() {
    let gitlab = gitlab_with_one_mr().await;
    mount_mr(
        &gitlab,
        HEAD_1,
        json!([
            file("src/app.rs", APP_DIFF_1),
            file("docs/guide.md", APP_DIFF_1)
        ]),
        1,
    )
    .await;
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/1/repository/files/.reviewd.yml/raw"))
        .and(query_param("ref", HEAD_1))
        .respond_with(ResponseTemplate::new(200).set_body_string(CONFIG))
        .mount(&gitlab.server)
        .await;
    let app = TestApp::spawn_with(&[
        ("PROVIDERA_ENDPOINT", "http://ai.invalid/v1".to_owned()),
        ("PROVIDERA_API_KEY", "sk-runner".to_owned()),
    ])
    .await;
    setup_project(&app, &gitlab).await;
    let task_id = send_webhook(&app, &fixture()).await;
    let key = api_key(&app).await;
    register(&app, &key, "r1", 1, "").await;
    let runner = app.with_api_key(&key);

    let claimed = json(
        runner
            .get("/api/runners/tasks/pending?runnerId=r1&limit=1")
            .await,
        StatusCode::OK,
    )
    .await;
    let task = &claimed["data"][0];
    assert_eq!(task["id"], task_id.as_str(), "{claimed}");
    assert_eq!(
        task["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["filePath"].as_str().unwrap())
            .collect::<Vec<_>>(),
        vec!["src/app.rs"],
        "docs/** ignored by the file"
    );
    assert!(
        task["systemPrompt"]
            .as_str()
            .unwrap()
            .contains("every comment message in German")
    );
    let rule = task["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleName"] == "Errors")
        .expect("the file's rule");
    assert_eq!(rule["instructions"], "Never unwrap.");
    assert_eq!(rule["filePathPatterns"], json!(["src/**"]));

    let comments = json!([
        { "line": 2, "severity": "error", "message": "unwrap() panics; return the error." },
        { "line": 2, "severity": "warning", "message": "x is unused." }
    ]);
    let done = json(
        runner
            .post(
                &format!("/api/runners/tasks/{task_id}/result"),
                result_body("r1", comments),
            )
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(done["data"]["taskStatus"], "completed", "{done}");
    let inline = posted(&gitlab, "POST", "/discussions").await;
    assert_eq!(
        inline.len(),
        1,
        "the warning is below minSeverity: {inline:?}"
    );
    assert!(
        inline[0]["body"]
            .as_str()
            .unwrap()
            .starts_with("**error**: unwrap() panics")
    );
}
