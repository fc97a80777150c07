use crate::response::HttpResponse;
use crate::retry::{self, redacted_url};
use crate::{HttpError, RetryPolicy};
use bytes::Bytes;
use reqwest::{Client, RequestBuilder};
use std::time::Duration;

/// A reqwest client with the retry policy applied to every call.
#[derive(Debug, Clone)]
pub struct HttpClient {
    client: Client,
    policy: RetryPolicy,
    /// Whether log lines show URL paths (off for webhooks whose path is a token).
    log_paths: bool,
}

impl HttpClient {
    /// # Errors
    /// `Connect` when the TLS backend cannot be initialised.
    pub fn new(policy: RetryPolicy) -> Result<Self, HttpError> {
        let client = Client::builder()
            .redirect(same_origin_redirects())
            .timeout(policy.timeout)
            .connect_timeout(policy.timeout.min(Duration::from_secs(10)))
            .user_agent(concat!("reviewd/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| HttpError::Connect(e.to_string()))?;
        Ok(Self {
            client,
            policy,
            log_paths: true,
        })
    }

    /// A client whose log lines name only the host of a URL: for chat webhooks
    /// (Discord, Feishu) whose path is the secret.
    #[must_use]
    pub fn without_paths_in_logs(mut self) -> Self {
        self.log_paths = false;
        self
    }

    /// The policy every call of this client follows, for a driver that sends through
    /// [`HttpClient::reqwest`] and runs [`crate::run_with_policy`] itself.
    #[must_use]
    pub fn policy(&self) -> RetryPolicy {
        self.policy
    }

    /// The underlying client, for a library driver (octocrab) that sends its own
    /// requests: it carries the per-attempt timeouts and the `User-Agent`, so those
    /// calls are bounded as ours are. Retrying is left to [`crate::run_with_policy`].
    #[must_use]
    pub fn reqwest(&self) -> &Client {
        &self.client
    }

    /// Sends the request built by `build`, retrying as the policy says (through
    /// [`crate::run_with_policy`]). Idempotent methods are retried on 5xx and
    /// timeouts; a `POST` only when the server refused it before doing anything (429,
    /// or no connection), so a comment is never posted twice.
    ///
    /// # Errors
    /// The last failure: `Status` (with the rate-limit hint), `Timeout` or `Connect`.
    pub async fn send(
        &self,
        build: impl Fn(&Client) -> RequestBuilder,
    ) -> Result<HttpResponse, HttpError> {
        self.send_with(build, false).await
    }

    /// As [`HttpClient::send`], for a `POST` that is safe to repeat (a chat
    /// completion): 5xx and timeouts are retried for it too.
    ///
    /// # Errors
    /// As [`HttpClient::send`].
    pub async fn send_repeatable(
        &self,
        build: impl Fn(&Client) -> RequestBuilder,
    ) -> Result<HttpResponse, HttpError> {
        self.send_with(build, true).await
    }

    /// As [`HttpClient::send`] for a `GET` whose body may be large (a repository
    /// archive): the body is read up to `max_body` bytes, and a longer one is
    /// refused as [`HttpError::TooLarge`] as soon as it passes the bound, without
    /// reading the rest.
    ///
    /// # Errors
    /// As [`HttpClient::send`], and `TooLarge`.
    pub async fn send_bounded(
        &self,
        build: impl Fn(&Client) -> RequestBuilder,
        max_body: u64,
    ) -> Result<HttpResponse, HttpError> {
        self.send_inner(build, false, Some(max_body)).await
    }

    async fn send_with(
        &self,
        build: impl Fn(&Client) -> RequestBuilder,
        repeatable: bool,
    ) -> Result<HttpResponse, HttpError> {
        self.send_inner(build, repeatable, None).await
    }

    async fn send_inner(
        &self,
        build: impl Fn(&Client) -> RequestBuilder,
        repeatable: bool,
        max_body: Option<u64>,
    ) -> Result<HttpResponse, HttpError> {
        let build_request = || {
            build(&self.client)
                .build()
                .map_err(|e| HttpError::Connect(e.to_string()))
        };
        // The first request is built here to name the call in the logs; each retry
        // builds its own, since sending consumes a request.
        let first = build_request()?;
        let method = first.method().clone();
        let log_url = if self.log_paths {
            redacted_url(first.url())
        } else {
            format!(
                "{}://{}",
                first.url().scheme(),
                first.url().host_str().unwrap_or("")
            )
        };
        let mut first = Some(first);
        let (client, timeout) = (&self.client, self.policy.timeout);
        retry::run(&self.policy, &method, &log_url, repeatable, || {
            let request = first.take().map_or_else(build_request, Ok);
            async move {
                match client.execute(request?).await {
                    Ok(response) => match max_body {
                        None => read(response).await,
                        Some(max) => read_bounded(response, max).await,
                    },
                    Err(e) => Err(transport_error(&e, timeout)),
                }
            }
        })
        .await
    }
}

async fn read(response: reqwest::Response) -> Result<HttpResponse, HttpError> {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.bytes().await.map_err(|e| {
        HttpError::Interrupted(format!("reading the body: {}", e.without_url_ref()))
    })?;
    Ok(HttpResponse {
        status,
        headers,
        body,
    })
}

async fn read_bounded(
    mut response: reqwest::Response,
    max: u64,
) -> Result<HttpResponse, HttpError> {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    if response.content_length().is_some_and(|n| n > max) {
        return Err(HttpError::TooLarge(max));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| HttpError::Interrupted(format!("reading the body: {}", e.without_url_ref())))?
    {
        if body.len() as u64 + chunk.len() as u64 > max {
            return Err(HttpError::TooLarge(max));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(HttpResponse {
        status,
        headers,
        body: Bytes::from(body),
    })
}

/// Redirects are followed within the origin they start from (GitHub's renamed
/// repositories), never to another: reqwest drops `Authorization` on a cross-origin
/// hop but not custom headers such as GitLab's `PRIVATE-TOKEN`.
fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let origin = |url: &reqwest::Url| {
            (
                url.scheme().to_owned(),
                url.host_str().map(str::to_owned),
                url.port_or_known_default(),
            )
        };
        let same = attempt
            .previous()
            .first()
            .is_some_and(|first| origin(first) == origin(attempt.url()));
        if !same {
            attempt.stop()
        } else if attempt.previous().len() > 5 {
            attempt.error("too many redirects")
        } else {
            attempt.follow()
        }
    })
}

/// The error for an attempt that got no answer: `Timeout` when the client's
/// per-attempt timeout ran out, `Connect` when no connection was made, else
/// `Interrupted` (the request may have been sent); its text without the URL's query
/// (which may carry a token). Public for a library driver that sends through
/// [`HttpClient::reqwest`] (octocrab's connector), so its failures read as ours.
#[must_use]
pub fn transport_error(e: &reqwest::Error, timeout: Duration) -> HttpError {
    if e.is_timeout() {
        HttpError::Timeout(timeout)
    } else if e.is_connect() {
        HttpError::Connect(e.without_url_ref())
    } else {
        // Sent, perhaps: a POST must not be sent again on a guess.
        HttpError::Interrupted(e.without_url_ref())
    }
}

trait WithoutUrl {
    fn without_url_ref(&self) -> String;
}

impl WithoutUrl for reqwest::Error {
    /// The error text without the URL, whose query could hold a token.
    fn without_url_ref(&self) -> String {
        let mut text = self.to_string();
        if let Some(url) = self.url() {
            text = text.replace(url.as_str(), &redacted_url(url));
        }
        text
    }
}
