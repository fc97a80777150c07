//! The retry policy against a local server.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reviewd_http::{HttpClient, HttpError, RetryPolicy};
use std::time::Duration;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn client() -> HttpClient {
    HttpClient::new(RetryPolicy {
        timeout: Duration::from_millis(300),
        ..RetryPolicy::fast()
    })
    .unwrap()
}

#[tokio::test]
async fn retries_5xx_on_get_then_succeeds() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/x"))
        .respond_with(ResponseTemplate::new(502))
        .up_to_n_times(2)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/x"))
        .respond_with(ResponseTemplate::new(200).set_body_string("ok"))
        .mount(&server)
        .await;
    let r = client()
        .send(|c| c.get(format!("{}/x", server.uri())))
        .await
        .unwrap();
    assert_eq!(&r.body[..], b"ok");
    assert_eq!(server.received_requests().await.unwrap().len(), 3);
}

#[tokio::test]
async fn gives_up_after_max_attempts_with_the_last_status() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(500).set_body_json(serde_json::json!({"message": "boom"})),
        )
        .mount(&server)
        .await;
    let err = client().send(|c| c.get(server.uri())).await.unwrap_err();
    assert!(
        matches!(&err, HttpError::Status { status: 500, message, .. } if message == "boom"),
        "{err:?}"
    );
    assert_eq!(server.received_requests().await.unwrap().len(), 3);
}

#[tokio::test]
async fn a_post_is_not_repeated_after_a_5xx() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&server)
        .await;
    let err = client()
        .send(|c| c.post(server.uri()).body("comment"))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(503));
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_429_is_retried_after_retry_after_even_for_post() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(429).insert_header("retry-after", "1"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(201))
        .mount(&server)
        .await;
    let started = std::time::Instant::now();
    let r = client().send(|c| c.post(server.uri())).await.unwrap();
    assert_eq!(r.status, 201);
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "waited for Retry-After"
    );
}

#[tokio::test]
async fn a_rate_limit_longer_than_we_wait_is_reported_at_once() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(403)
                .insert_header("x-ratelimit-remaining", "0")
                .insert_header("retry-after", "3600"),
        )
        .mount(&server)
        .await;
    let err = client().send(|c| c.get(server.uri())).await.unwrap_err();
    assert!(err.is_rate_limited());
    assert!(
        matches!(err, HttpError::Status { retry_after: Some(d), .. } if d == Duration::from_secs(3600))
    );
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn slow_servers_time_out_and_client_errors_are_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/slow"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(2)))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/missing"))
        .respond_with(ResponseTemplate::new(404))
        .mount(&server)
        .await;
    let err = client()
        .send(|c| c.get(format!("{}/slow", server.uri())))
        .await
        .unwrap_err();
    assert!(matches!(err, HttpError::Timeout(_)), "{err:?}");
    let err = client()
        .send(|c| c.get(format!("{}/missing", server.uri())))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(404));
    assert_eq!(
        server
            .received_requests()
            .await
            .unwrap()
            .iter()
            .filter(|r| r.url.path() == "/missing")
            .count(),
        1
    );
}

#[tokio::test]
async fn refused_connections_are_reported() {
    let err = client()
        .send(|c| c.get("http://127.0.0.1:1/"))
        .await
        .unwrap_err();
    assert!(matches!(err, HttpError::Connect(_)), "{err:?}");
}
