//! Who gets which task: capacity and tags respected, no task shared, one merge request at a time.

use super::{api_key, register, runner_world};
use crate::helpers::{TestApp, json};
use crate::review_pipeline::{gitlab_with_one_mr, setup_project};
use reqwest::StatusCode;

#[tokio::test]
async fn runners_polling_at_once_never_share_a_task_and_respect_capacity_and_tags() {
    let gitlab = gitlab_with_one_mr().await;
    // Any MR number answers like MR 1, so twenty MRs can be queued.
    crate::review_pipeline::mount_any_mr(&gitlab).await;
    let app = TestApp::spawn().await;
    setup_project(&app, &gitlab).await;
    let project = app.sql("SELECT id FROM projects LIMIT 1");
    app.sql(&format!(
        "INSERT INTO review_tasks (triggered_by, project_id, mr_iid, status, required_tags) \
         SELECT 'auto', '{project}', n, 'queued', CASE WHEN n > 20 THEN ARRAY['gpu'] ELSE '{{}}' END \
         FROM generate_series(2, 22) n"
    ));
    let key = api_key(&app).await;
    for i in 0..5 {
        register(&app, &key, &format!("r{i}"), 4, "").await;
    }
    let polls = (0..5).map(|i| {
        let runner = app.with_api_key(&key);
        async move {
            let got = json(
                runner
                    .get(&format!(
                        "/api/runners/tasks/pending?runnerId=r{i}&limit=10"
                    ))
                    .await,
                StatusCode::OK,
            )
            .await;
            got["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["id"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    });
    let per_runner: Vec<Vec<String>> = futures_util::future::join_all(polls).await;
    assert!(per_runner.iter().all(|t| t.len() <= 4), "{per_runner:?}");
    let mut all: Vec<String> = per_runner.into_iter().flatten().collect();
    let claimed = all.len();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), claimed, "no task claimed twice");
    assert_eq!(
        claimed, 19,
        "the 19 untagged tasks; the two `gpu` ones wait"
    );
    assert_eq!(
        app.sql("SELECT count(*) FROM review_tasks WHERE status = 'queued'"),
        "2"
    );
}

#[tokio::test]
async fn two_tasks_of_one_merge_request_are_never_claimed_at_once() {
    let (app, _gitlab) = runner_world(&[]).await;
    let project = app.sql("SELECT id FROM projects LIMIT 1");
    // A manual and an automatic request for MR 1, both queued.
    app.sql(&format!(
        "INSERT INTO review_tasks (triggered_by, project_id, mr_iid, status) \
         VALUES ('manual', '{project}', 1, 'queued'), ('auto', '{project}', 1, 'queued')"
    ));
    let key = api_key(&app).await;
    register(&app, &key, "wide", 5, "").await;
    register(&app, &key, "other", 5, "").await;
    let runner = app.with_api_key(&key);
    let first = json(
        runner
            .get("/api/runners/tasks/pending?runnerId=wide&limit=5")
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        first["data"].as_array().unwrap().len(),
        1,
        "one per MR: {first}"
    );
    let second = json(
        runner
            .get("/api/runners/tasks/pending?runnerId=other&limit=5")
            .await,
        StatusCode::OK,
    )
    .await;
    assert!(
        second["data"].as_array().unwrap().is_empty(),
        "the MR is busy: {second}"
    );
    assert_eq!(
        app.sql("SELECT count(*) FROM review_tasks WHERE status = 'processing'"),
        "1"
    );
}
