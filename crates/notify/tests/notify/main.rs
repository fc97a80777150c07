//! The notifiers against local fake servers (wiremock for HTTP, the testkit's fake
//! SMTP server for email): the exact requests a receiver sees, and how each way a
//! delivery can fail is reported. One test binary, one module per channel.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

mod discord;
mod email;
mod failures;
mod feishu;
mod push;
mod slack;
mod teams;
mod webhook;

use chrono::{TimeZone, Utc};
use reviewd_domain::model::notification::{Notification, NotificationType};
use reviewd_http::HttpClient;
use std::time::Duration;
use wiremock::{MockServer, Request};

pub const TITLE: &str = "Review completed: Fix login redirect (!42)";
pub const TEXT: &str = "acme/web !42 scored 91 (A), 3 comments.";
pub const URL: &str = "https://reviewd.example.com/reviews/0190";

pub fn notification(kind: NotificationType) -> Notification {
    Notification {
        kind,
        title: TITLE.into(),
        text: TEXT.into(),
        url: Some(URL.into()),
        review: None,
        digest: None,
        created_at: Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap(),
    }
}

pub fn http() -> HttpClient {
    reviewd_notify::single_attempt_client(Duration::from_secs(5)).unwrap()
}

/// A client that gives up long before a delayed fake answers.
pub fn impatient_http() -> HttpClient {
    reviewd_notify::single_attempt_client(Duration::from_millis(300)).unwrap()
}

/// The one request the server received.
pub async fn only_request(server: &MockServer) -> Request {
    let mut requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 1, "expected exactly one request");
    requests.remove(0)
}

pub fn header<'a>(request: &'a Request, name: &str) -> Option<&'a str> {
    request.headers.get(name).and_then(|v| v.to_str().ok())
}

/// A loopback port nothing listens on (bound, then released).
pub fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}
