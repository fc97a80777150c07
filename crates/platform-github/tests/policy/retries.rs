//! What is sent again and what is not: a GET after a 502, never a review.

use super::*;

#[tokio::test]
async fn a_get_answered_502_is_sent_again() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(PULL))
        .respond_with(ResponseTemplate::new(502).set_body_string("Bad Gateway"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(PULL))
        .respond_with(ResponseTemplate::new(200).set_body_json(pull()))
        .mount(&server)
        .await;
    let mr = platform(&server.uri())
        .get_merge_request(&repo(), 1347)
        .await
        .unwrap();
    assert_eq!(mr.iid, 1347);
    assert_eq!(requests_to(&server, PULL).await, 2);
}

#[tokio::test]
async fn a_review_answered_502_is_not_posted_twice() {
    let server = MockServer::start().await;
    let reviews = format!("{PULL}/reviews");
    Mock::given(method("POST"))
        .and(path(reviews.as_str()))
        .respond_with(ResponseTemplate::new(502).set_body_string("Bad Gateway"))
        .mount(&server)
        .await;
    let refs = DiffRefs {
        base_sha: "b".into(),
        start_sha: "b".into(),
        head_sha: "h".into(),
    };
    let comment = InlineComment {
        file_path: "src/app.rs".into(),
        old_path: None,
        line: 2,
        body: "one".into(),
        suggestion: None,
    };
    let err = platform(&server.uri())
        .post_inline_comments(&repo(), 1347, &refs, &[comment])
        .await
        .unwrap_err();
    assert!(
        matches!(&err, PlatformError::Unavailable(m) if m.contains("502")),
        "{err:?}"
    );
    assert_eq!(
        requests_to(&server, &reviews).await,
        1,
        "GitHub may have posted it"
    );
}

#[tokio::test]
async fn an_unreachable_server_is_unavailable_after_the_retries() {
    // A port nobody listens on: each attempt fails to connect.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let err = platform(&base)
        .get_merge_request(&repo(), 1347)
        .await
        .unwrap_err();
    assert!(matches!(err, PlatformError::Unavailable(_)), "{err:?}");
}
