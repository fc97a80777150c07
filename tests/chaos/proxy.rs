//! A slow comment API: an HTTP/1.1 proxy in front of the fake GitLab that holds the
//! answer to every comment post for a while. The post is on the platform when the
//! wait starts, so a server killed during it has posted a comment it never heard
//! back about: the window in which a retry could post it twice.
//!
//! Just enough HTTP for the server's client: requests with a `Content-Length` body
//! (or none), answers with one, connections kept alive.

use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

pub struct SlowProxy {
    pub url: String,
}

/// What a request is forwarded with.
#[derive(Clone)]
struct Route {
    upstream: Arc<str>,
    post_delay: Duration,
    client: reqwest::Client,
}

/// Headers the proxy sets itself (or that describe one hop only).
const HOP: [&str; 5] = [
    "host",
    "content-length",
    "connection",
    "transfer-encoding",
    "keep-alive",
];

impl SlowProxy {
    /// Forwards to `upstream`; answers to comment posts wait `post_delay` more.
    pub async fn start(upstream: &str, post_delay: Duration) -> SlowProxy {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a proxy port");
        let url = format!("http://{}", listener.local_addr().expect("its address"));
        let route = Route {
            upstream: upstream.trim_end_matches('/').into(),
            post_delay,
            client: reqwest::Client::new(),
        };
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let route = route.clone();
                tokio::spawn(async move {
                    // A connection the server dropped (it was killed) just ends.
                    let _ = serve(stream, route).await;
                });
            }
        });
        SlowProxy { url }
    }
}

/// A comment on a MR: a line comment (`/discussions`) or a general one (`/notes`).
fn is_comment_post(method: &str, target: &str) -> bool {
    let path = target.split('?').next().unwrap_or(target);
    method == "POST" && (path.ends_with("/discussions") || path.ends_with("/notes"))
}

async fn serve(stream: TcpStream, route: Route) -> std::io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    loop {
        let mut line = String::new();
        if read.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let mut words = line.split_whitespace();
        let (Some(method), Some(target)) = (words.next(), words.next()) else {
            return Ok(());
        };
        let (method, target) = (method.to_owned(), target.to_owned());
        let mut headers = Vec::new();
        let mut length = 0;
        let mut close = false;
        loop {
            let mut header = String::new();
            read.read_line(&mut header).await?;
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            let Some((name, value)) = header.split_once(':') else {
                continue;
            };
            let (name, value) = (name.trim().to_ascii_lowercase(), value.trim().to_owned());
            if name == "content-length" {
                length = value.parse().unwrap_or(0);
            }
            close |= name == "connection" && value.eq_ignore_ascii_case("close");
            headers.push((name, value));
        }
        let mut body = vec![0; length];
        read.read_exact(&mut body).await?;
        let answer = forward(&route, &method, &target, headers, body).await;
        if is_comment_post(&method, &target) {
            tokio::time::sleep(route.post_delay).await;
        }
        write.write_all(&answer).await?;
        if close {
            return Ok(());
        }
    }
}

/// The upstream's answer as HTTP/1.1 bytes (a 502 when it cannot be reached).
async fn forward(
    route: &Route,
    method: &str,
    target: &str,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
) -> Vec<u8> {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap_or(reqwest::Method::GET);
    let mut request = route
        .client
        .request(method, format!("{}{target}", route.upstream))
        .body(body);
    for (name, value) in headers.iter().filter(|(n, _)| !HOP.contains(&n.as_str())) {
        request = request.header(name, value);
    }
    let Ok(response) = request.send().await else {
        return b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n".to_vec();
    };
    let status = response.status();
    let mut head = format!(
        "HTTP/1.1 {} {}\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or("")
    );
    for (name, value) in response.headers() {
        if !HOP.contains(&name.as_str()) {
            head.push_str(&format!(
                "{name}: {}\r\n",
                String::from_utf8_lossy(value.as_bytes())
            ));
        }
    }
    let body = response.bytes().await.unwrap_or_default();
    head.push_str(&format!("content-length: {}\r\n\r\n", body.len()));
    let mut answer = head.into_bytes();
    answer.extend_from_slice(&body);
    answer
}
