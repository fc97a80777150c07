//! Tokens and bodies checked in order; a queue failure is a 500 the platform retries.

use super::*;

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
