//! Tasks that lost their worker or their queue message are finished by another replica.

use super::{
    fake_ai, fixture, gitlab_with_one_mr, posted, redis, review_answer, send_webhook,
    setup_project, wait_for,
};
use crate::helpers::TestApp;
use serde_json::{Value, json};

#[tokio::test]
async fn a_task_held_by_a_dead_worker_is_finished_by_another() {
    let gitlab = gitlab_with_one_mr().await;
    let ai = fake_ai(review_answer).await;
    // The first replica queues but runs no workers; a "worker" then takes the task and dies.
    let first = TestApp::spawn().await;
    setup_project(&first, &gitlab).await;
    let task_id = send_webhook(&first, &fixture()).await;
    let mut conn = redis().await;
    let taken: Value = deadpool_redis::redis::cmd("XREADGROUP")
        .arg("GROUP")
        .arg("reviewd-workers")
        .arg("dies-mid-review")
        .arg("COUNT")
        .arg(1)
        .arg("STREAMS")
        .arg(format!("{}review-tasks", first.queue_prefix))
        .arg(">")
        .query_async::<deadpool_redis::redis::Value>(&mut conn)
        .await
        .map(|v| json!(format!("{v:?}")))
        .unwrap();
    assert!(
        taken.as_str().unwrap().contains(&task_id),
        "the dead worker holds the task"
    );

    // A second replica with workers reclaims it once it has been idle for a second.
    let second = TestApp::spawn_sharing(
        &first,
        &[
            ("REVIEW_WORKERS_ENABLED", "true".to_owned()),
            ("QUEUE_RECLAIM_IDLE_SECS", "1".to_owned()),
            ("PROVIDERA_ENDPOINT", format!("{}/v1", ai.uri())),
        ],
    )
    .await;
    let task = wait_for(&second, &task_id).await;
    assert_eq!(task["status"], "completed");
    assert_eq!(posted(&gitlab, "POST", "/discussions").await.len(), 2);
}

#[tokio::test]
async fn a_task_recorded_but_never_queued_is_swept_into_the_queue() {
    let gitlab = gitlab_with_one_mr().await;
    let ai = fake_ai(review_answer).await;
    let first = TestApp::spawn().await;
    setup_project(&first, &gitlab).await;
    let task_id = send_webhook(&first, &fixture()).await;
    // As if the process died between recording the task and queueing it: no message.
    let mut conn = redis().await;
    let _: () = deadpool_redis::redis::cmd("DEL")
        .arg(format!("{}review-tasks", first.queue_prefix))
        .query_async(&mut conn)
        .await
        .unwrap();
    let sql = format!(
        "UPDATE review_tasks SET stream_message_id = NULL, created_at = now() - interval '1 minute' WHERE id = '{task_id}'"
    );
    first.sql(&sql);

    let second = TestApp::spawn_sharing(
        &first,
        &[
            ("REVIEW_WORKERS_ENABLED", "true".to_owned()),
            ("QUEUE_ORPHAN_AGE_SECS", "2".to_owned()),
            ("PROVIDERA_ENDPOINT", format!("{}/v1", ai.uri())),
        ],
    )
    .await;
    let task = wait_for(&second, &task_id).await;
    assert_eq!(task["status"], "completed");
}
