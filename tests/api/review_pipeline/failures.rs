//! A provider that answers garbage, keeps failing, never answers, or outlasts the review timeout.

use super::{
    app_with_ai, fake_ai, fixture, gitlab_with_one_mr, posted, redis, send_webhook, setup_project,
    wait_for,
};
use crate::helpers::{TestApp, json};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::time::Duration;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

#[tokio::test]
async fn garbage_from_the_provider_fails_the_review_with_logs_and_no_lost_task() {
    let gitlab = gitlab_with_one_mr().await;
    let ai = fake_ai(|_| json!("Looks good to me!")).await;
    let app = app_with_ai(&ai, &[]).await;
    setup_project(&app, &gitlab).await;

    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    assert_eq!(task["status"], "failed");
    assert!(
        task["errorMessage"]
            .as_str()
            .unwrap()
            .contains("failed to review"),
        "{task}"
    );
    assert_eq!(
        ai.received_requests().await.unwrap().len(),
        2,
        "an unusable answer is asked again once, then given up"
    );
    assert!(
        posted(&gitlab, "POST", "/discussions").await.is_empty(),
        "nothing posted from garbage"
    );
}

/// A provider failing in `response` every time: the task fails after its attempts,
/// every call is logged, nothing is lost or left hanging.
async fn failing_provider(
    response: ResponseTemplate,
    extra: &[(&str, String)],
) -> (Value, Vec<Request>, TestApp) {
    let gitlab = gitlab_with_one_mr().await;
    let ai = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(response)
        .mount(&ai)
        .await;
    let app = app_with_ai(&ai, extra).await;
    setup_project(&app, &gitlab).await;
    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    (task, ai.received_requests().await.unwrap(), app)
}

#[tokio::test]
async fn a_provider_that_keeps_failing_is_retried_a_bounded_number_of_times() {
    for response in [
        ResponseTemplate::new(503),
        ResponseTemplate::new(429).insert_header("retry-after", "0"),
    ] {
        let (task, calls, app) = failing_provider(response, &[]).await;
        assert_eq!(task["status"], "failed");
        assert_eq!(task["attempts"], 3, "three task attempts");
        assert_eq!(calls.len(), 9, "each attempt retried its call three times");
        let reviews = json(
            app.root().await.get("/api/reviews?status=failed").await,
            StatusCode::OK,
        )
        .await;
        let review_id = reviews["data"]["items"][0]["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let logs = json(
            app.root()
                .await
                .get(&format!("/api/reviews/{review_id}/ai-logs?status=failed"))
                .await,
            StatusCode::OK,
        )
        .await;
        assert!(
            logs["meta"]["pagination"]["total"].as_u64().unwrap() >= 1,
            "failed calls are logged"
        );
    }
}

#[tokio::test]
async fn a_provider_that_never_answers_times_out_and_fails() {
    let slow = ResponseTemplate::new(200).set_delay(Duration::from_secs(30));
    let (task, calls, _) = failing_provider(
        slow,
        &[
            ("OUTBOUND_TIMEOUT_SECS", "1".to_owned()),
            ("OUTBOUND_MAX_ATTEMPTS", "1".to_owned()),
        ],
    )
    .await;
    assert_eq!(task["status"], "failed");
    assert_eq!(
        calls.len(),
        3,
        "one call per attempt, each cut at the timeout"
    );
}

#[tokio::test]
async fn a_review_running_past_its_timeout_is_failed_and_acknowledged() {
    let slow = ResponseTemplate::new(200).set_delay(Duration::from_secs(30));
    let (task, _, app) =
        failing_provider(slow, &[("REVIEW_TIMEOUT_MINUTES", "0.02".to_owned())]).await;
    assert_eq!(task["status"], "failed");
    assert!(
        task["errorMessage"].as_str().unwrap().contains("timeout"),
        "{task}"
    );
    let reviews = json(
        app.root().await.get("/api/reviews?status=failed").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        reviews["meta"]["pagination"]["total"], 1,
        "the review is failed too"
    );
    let mut conn = redis().await;
    let left: u64 = deadpool_redis::redis::cmd("XLEN")
        .arg(format!("{}review-tasks", app.queue_prefix))
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(
        left, 0,
        "the message is acknowledged, not redelivered forever"
    );
}
