//! The tower layers octocrab sends through, over the shared reqwest client:
//! [`ApiLayer`] puts each route under the right base and adds GitHub's headers,
//! [`PolicyLayer`] runs every request through reviewd's one retry policy
//! (`reviewd_http::run_with_policy`, docs/platforms.md §1) instead of octocrab's.

use bytes::Bytes;
use http::header::{ACCEPT, HeaderName, HeaderValue, USER_AGENT};
use http::{Method, Request, Response, Uri};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use octocrab::OctoBody;
use reviewd_http::{HttpError, HttpResponse, RetryPolicy, run_with_policy, transport_error};
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll};
use tower::{BoxError, Layer, Service, ServiceExt};
use url::Url;

const API_VERSION: HeaderName = HeaderName::from_static("x-github-api-version");

/// Where octocrab's relative routes go: `/graphql` to the GraphQL endpoint (which an
/// Enterprise Server keeps at `{host}/api/graphql`, not under its REST base
/// `{host}/api/v3`), everything else under the REST base. One client serves both,
/// so both carry the same authorization: octocrab adds it only to relative routes.
#[derive(Debug, Clone)]
pub(crate) struct ApiLayer {
    /// The REST base without a trailing slash, e.g. `https://ghe.example.com/api/v3`.
    rest: String,
    graphql: String,
}

impl ApiLayer {
    /// # Errors
    /// The base that is no absolute URI.
    pub(crate) fn new(rest: &str, graphql: &str) -> Result<Self, String> {
        for base in [rest, graphql] {
            let uri: Uri = base.parse().map_err(|e| format!("`{base}`: {e}"))?;
            if uri.scheme().is_none() || uri.authority().is_none() {
                return Err(format!("`{base}` is no absolute URL"));
            }
        }
        Ok(Self {
            rest: rest.trim_end_matches('/').to_owned(),
            graphql: graphql.to_owned(),
        })
    }

    fn absolute(&self, uri: &Uri) -> Option<Uri> {
        if uri.authority().is_some() {
            return None;
        }
        let target = match uri.path_and_query() {
            Some(route) if route.path() == "/graphql" => self.graphql.clone(),
            Some(route) => format!("{}{route}", self.rest),
            None => self.rest.clone(),
        };
        target.parse().ok()
    }
}

impl<S> Layer<S> for ApiLayer {
    type Service = Api<S>;

    fn layer(&self, inner: S) -> Api<S> {
        Api {
            layer: self.clone(),
            inner,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Api<S> {
    layer: ApiLayer,
    inner: S,
}

impl<S, B> Service<Request<B>> for Api<S>
where
    S: Service<Request<B>>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<B>) -> S::Future {
        if let Some(uri) = self.layer.absolute(request.uri()) {
            *request.uri_mut() = uri;
        }
        let headers = request.headers_mut();
        // Set, never appended (octocrab's own `ExtraHeadersLayer` appends): octocrab
        // already sends the API version on most calls, and a call asking for a raw
        // or diff body names its own `Accept`.
        headers.insert(
            USER_AGENT,
            HeaderValue::from_static(concat!("reviewd/", env!("CARGO_PKG_VERSION"))),
        );
        headers
            .entry(ACCEPT)
            .or_insert(HeaderValue::from_static("application/vnd.github+json"));
        headers
            .entry(API_VERSION)
            .or_insert(HeaderValue::from_static("2022-11-28"));
        self.inner.call(request)
    }
}

/// Runs each request through [`run_with_policy`]: attempts, backoff, `Retry-After`
/// and `x-ratelimit-reset`, the no-repeat rule for `POST`, and the
/// `http.retrying`/`http.call_failed` logs are those of every other outbound call.
/// The final answer, whatever its status, goes back to octocrab as a response (it
/// makes a non-2xx one `Error::GitHub`, with the headers); a call that got no answer
/// fails with the [`HttpError`] boxed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PolicyLayer {
    policy: RetryPolicy,
}

impl PolicyLayer {
    pub(crate) fn new(policy: RetryPolicy) -> Self {
        Self { policy }
    }
}

impl<S> Layer<S> for PolicyLayer {
    type Service = Policy<S>;

    fn layer(&self, inner: S) -> Policy<S> {
        Policy {
            policy: self.policy,
            inner,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Policy<S> {
    policy: RetryPolicy,
    inner: S,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// What octocrab's `ReqwestConnector` answers with.
type ConnectorBody = BoxBody<Bytes, octocrab::Error>;

impl<S> Service<Request<OctoBody>> for Policy<S>
where
    S: Service<Request<OctoBody>, Response = Response<ConnectorBody>, Error = octocrab::Error>
        + Clone
        + Send
        + 'static,
    S::Future: Send,
{
    type Response = Response<Full<Bytes>>;
    type Error = BoxError;
    type Future = BoxFuture<Result<Response<Full<Bytes>>, BoxError>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        // Each attempt readies its own clone of the inner service.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<OctoBody>) -> Self::Future {
        let (inner, policy) = (self.inner.clone(), self.policy);
        Box::pin(async move {
            let (head, body) = request.into_parts();
            // Octocrab's bodies are JSON strings, read at once: every attempt sends
            // a copy.
            let body = body
                .collect()
                .await
                .map_err(|e| HttpError::Connect(format!("reading the request body: {e}")))?
                .to_bytes();
            let url = Url::parse(&head.uri.to_string())
                .map_err(|e| HttpError::Connect(format!("`{}`: {e}", head.uri)))?;
            let repeatable = repeatable(&head.method, head.uri.path());
            let last_failure = Mutex::new(None::<HttpResponse>);
            let (head_of_each, body_of_each, last) = (&head, &body, &last_failure);
            // `move`: the loop's future owns the service (which need not be `Sync`).
            let outcome = run_with_policy(&policy, &head.method, &url, repeatable, move || {
                let request = Request::from_parts(head_of_each.clone(), octo_body(body_of_each));
                let (inner, last_failure) = (inner.clone(), last);
                async move {
                    let response = inner.oneshot(request).await.map_err(|e| match e {
                        octocrab::Error::Reqwest { source, .. } => {
                            transport_error(&source, policy.timeout)
                        }
                        other => HttpError::Interrupted(other.to_string()),
                    })?;
                    let (parts, body) = response.into_parts();
                    let body = body
                        .collect()
                        .await
                        .map_err(|e| HttpError::Interrupted(format!("reading the body: {e}")))?
                        .to_bytes();
                    let response = HttpResponse {
                        status: parts.status.as_u16(),
                        headers: parts.headers,
                        body,
                    };
                    if !parts.status.is_success()
                        && let Ok(mut last) = last_failure.lock()
                    {
                        *last = Some(response.clone());
                    }
                    Ok(response)
                }
            })
            .await;
            let response =
                match outcome {
                    Ok(response) => response,
                    Err(error @ HttpError::Status { .. }) => last_failure
                        .into_inner()
                        .ok()
                        .flatten()
                        .ok_or_else(|| Box::new(error) as BoxError)?,
                    Err(error) => return Err(Box::new(error) as BoxError),
                };
            let mut answer = Response::new(Full::new(response.body));
            *answer.status_mut() = http::StatusCode::from_u16(response.status)
                .map_err(|e| HttpError::Decode(e.to_string()))?;
            *answer.headers_mut() = response.headers;
            Ok(answer)
        })
    }
}

/// Whether a failed attempt may be sent again after a 5xx or a timeout: every
/// method but `POST`, and the `POST`s that change nothing (GraphQL queries, which
/// reviewd only reads with) or nothing twice (minting an installation token).
fn repeatable(method: &Method, path: &str) -> bool {
    *method != Method::POST || path.ends_with("/graphql") || path.ends_with("/access_tokens")
}

fn octo_body(body: &Bytes) -> OctoBody {
    if body.is_empty() {
        OctoBody::empty()
    } else {
        OctoBody::from(body.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_go_under_the_rest_base_and_graphql_beside_it() {
        let layer = ApiLayer::new(
            "https://ghe.example.com/api/v3/",
            "https://ghe.example.com/api/graphql",
        );
        let layer = layer.as_ref().map_err(String::as_str);
        let Ok(layer) = layer else {
            panic!("{layer:?}")
        };
        let absolute = |route: &'static str| {
            layer
                .absolute(&Uri::from_static(route))
                .map(|u| u.to_string())
        };
        assert_eq!(
            absolute("/repos/o/r/pulls?page=2&per_page=100").as_deref(),
            Some("https://ghe.example.com/api/v3/repos/o/r/pulls?page=2&per_page=100")
        );
        assert_eq!(
            absolute("/graphql").as_deref(),
            Some("https://ghe.example.com/api/graphql")
        );
        assert_eq!(absolute("https://elsewhere.example/x"), None);
        assert!(ApiLayer::new("/api/v3", "https://x/graphql").is_err());
    }

    #[test]
    fn only_reads_and_token_mints_are_posted_twice() {
        assert!(repeatable(&Method::GET, "/api/v3/repos/o/r/pulls"));
        assert!(repeatable(
            &Method::PATCH,
            "/api/v3/repos/o/r/issues/comments/1"
        ));
        assert!(repeatable(&Method::POST, "/api/graphql"));
        assert!(repeatable(
            &Method::POST,
            "/api/v3/app/installations/7/access_tokens"
        ));
        assert!(!repeatable(
            &Method::POST,
            "/api/v3/repos/o/r/pulls/1/reviews"
        ));
    }
}
