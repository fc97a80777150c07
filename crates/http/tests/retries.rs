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

/// A server that answers every request with headers promising 100 bytes, sends
/// 10 and hangs up: the answer is cut off after the request was received.
/// Returns its address and the number of requests it took.
async fn cut_off_server() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let requests = std::sync::Arc::new(AtomicUsize::new(0));
    let counted = requests.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let counted = counted.clone();
            tokio::spawn(async move {
                let mut buf = [0_u8; 4096];
                if socket.read(&mut buf).await.unwrap_or(0) > 0 {
                    counted.fetch_add(1, Ordering::SeqCst);
                    let _ = socket
                        .write_all(b"HTTP/1.1 201 Created\r\ncontent-length: 100\r\n\r\n0123456789")
                        .await;
                }
                // Dropped: the connection closes mid-body.
            });
        }
    });
    (address, requests)
}

#[tokio::test]
async fn a_post_whose_answer_is_cut_off_is_not_sent_again_a_get_is() {
    use std::sync::atomic::Ordering;
    let (address, requests) = cut_off_server().await;
    let err = client()
        .send(|c| c.post(&address).body("a comment"))
        .await
        .unwrap_err();
    assert!(matches!(err, HttpError::Interrupted(_)), "{err:?}");
    assert_eq!(
        requests.load(Ordering::SeqCst),
        1,
        "the server may have stored it: one POST"
    );
    requests.store(0, Ordering::SeqCst);
    let err = client().send(|c| c.get(&address)).await.unwrap_err();
    assert!(matches!(err, HttpError::Interrupted(_)), "{err:?}");
    assert_eq!(
        requests.load(Ordering::SeqCst),
        3,
        "a GET is safe to repeat"
    );
}

#[tokio::test]
async fn redirects_are_followed_within_their_origin_and_not_to_another_host() {
    let server = MockServer::start().await;
    let elsewhere = MockServer::start().await;
    Mock::given(path("/old"))
        .respond_with(ResponseTemplate::new(301).insert_header("location", "/new"))
        .mount(&server)
        .await;
    Mock::given(path("/new"))
        .respond_with(ResponseTemplate::new(200).set_body_string("moved"))
        .mount(&server)
        .await;
    Mock::given(path("/away"))
        .respond_with(
            ResponseTemplate::new(302)
                .insert_header("location", format!("{}/collect", elsewhere.uri()).as_str()),
        )
        .mount(&server)
        .await;
    let moved = client()
        .send(|c| c.get(format!("{}/old", server.uri())))
        .await
        .unwrap();
    assert_eq!(&moved.body[..], b"moved");
    let err = client()
        .send(|c| {
            c.get(format!("{}/away", server.uri()))
                .header("PRIVATE-TOKEN", "glpat-secret")
        })
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(302), "{err:?}");
    assert!(
        elsewhere.received_requests().await.unwrap().is_empty(),
        "the token's header went to another host"
    );
}
