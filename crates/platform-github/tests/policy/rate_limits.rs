//! Secondary rate limits waited out; a longer wait returned at once.

use super::*;

#[tokio::test]
async fn a_secondary_rate_limit_is_waited_out_even_for_a_post() {
    let server = MockServer::start().await;
    let comments = "/api/v3/repos/octocat/Hello-World/issues/1347/comments";
    Mock::given(method("POST"))
        .and(path(comments))
        .respond_with(
            ResponseTemplate::new(403)
                .insert_header("retry-after", "1")
                .set_body_json(json!({
                    "message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
                    "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
                })),
        )
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(comments))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({
            "id": 1, "body": "Me too", "created_at": "2011-04-14T16:00:49Z"
        })))
        .mount(&server)
        .await;
    let started = std::time::Instant::now();
    let id = platform(&server.uri())
        .post_comment(&repo(), 1347, "Me too")
        .await
        .unwrap();
    assert_eq!(id, "1");
    assert_eq!(requests_to(&server, comments).await, 2);
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After is honoured"
    );
}

#[tokio::test]
async fn a_429_asking_for_longer_than_the_policy_waits_is_returned_at_once() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(PULL))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("retry-after", "60")
                .set_body_json(json!({ "message": "API rate limit exceeded" })),
        )
        .mount(&server)
        .await;
    let started = std::time::Instant::now();
    let err = platform(&server.uri())
        .get_merge_request(&repo(), 1347)
        .await
        .unwrap_err();
    assert_eq!(
        err,
        PlatformError::RateLimited {
            retry_after: Some(Duration::from_secs(60))
        }
    );
    assert_eq!(requests_to(&server, PULL).await, 1);
    assert!(started.elapsed() < Duration::from_secs(5));
}
