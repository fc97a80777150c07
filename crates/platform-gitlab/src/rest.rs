//! The `gitlab` crate's client traits over [`reviewd_http::HttpClient`]: the crate
//! builds each request (path, query, form body), our client sends it, so every call
//! keeps reviewd's timeouts, retries, `Retry-After` handling and logs. Only 2xx
//! answers reach the crate; any other is our `HttpError`, mapped by [`gl_error`].

use async_trait::async_trait;
use bytes::Bytes;
use gitlab::api::endpoint_prelude::{Cow, Endpoint, Method, Pageable, QueryParams, UrlBase};
use gitlab::api::{ApiError, AsyncClient, AsyncQuery, BodyError, Pagination, RestClient};
use reqwest::RequestBuilder;
use reviewd_domain::model::{AuthType, PlatformPage, SecretString};
use reviewd_domain::ports::PlatformError;
use reviewd_http::{HttpClient, HttpError, MAX_PAGES, platform_error};
use serde::de::DeserializeOwned;
use url::Url;

/// Items a "list everything" call reads at most: [`MAX_PAGES`] pages of 100, as
/// every other adapter.
const LIST_LIMIT: usize = MAX_PAGES as usize * 100;

/// One GitLab instance, with or without a token (the OAuth endpoints take none).
pub(crate) struct GlRest {
    http: HttpClient,
    /// The instance URL without a trailing slash.
    base: String,
    credentials: Option<(AuthType, SecretString)>,
}

impl GlRest {
    pub(crate) fn new(
        http: HttpClient,
        base_url: &str,
        credentials: Option<(AuthType, SecretString)>,
    ) -> Self {
        Self {
            http,
            base: base_url.trim_end_matches('/').to_owned(),
            credentials,
        }
    }

    /// Personal and project tokens go in `PRIVATE-TOKEN`, OAuth tokens as a bearer.
    /// (GitLab has no App installs; a token minted by one would be a bearer too.)
    fn authorize(&self, request: RequestBuilder) -> RequestBuilder {
        match &self.credentials {
            Some((AuthType::Token, token)) => request.header("PRIVATE-TOKEN", token.expose()),
            Some((AuthType::OAuth | AuthType::App, token)) => request.bearer_auth(token.expose()),
            None => request,
        }
    }

    /// The token goes to the configured instance only: a URL the crate did not
    /// build from our base (a keyset `Link` on GitLab's `external_url`) is refused.
    fn guard(&self, url: &Url) -> Result<(), ApiError<HttpError>> {
        let base = Url::parse(&self.base)?;
        if url.origin() == base.origin() {
            return Ok(());
        }
        Err(ApiError::client(HttpError::Decode(format!(
            "a link to {} leaves the configured instance; not followed",
            url.host_str().unwrap_or("another host")
        ))))
    }

    /// Every item of a list, `per_page=100` (one extra, empty page when the count is
    /// a multiple of 100, as the crate reads until a short page).
    pub(crate) async fn all<E, T>(&self, endpoint: E) -> Result<Vec<T>, PlatformError>
    where
        E: Endpoint + Pageable + Sync,
        T: DeserializeOwned + Send + 'static,
    {
        let what = endpoint.endpoint();
        let items: Vec<T> = gitlab::api::paged(endpoint, Pagination::Limit(LIST_LIMIT))
            .query_async(self)
            .await
            .map_err(gl_error)?;
        if items.len() >= LIST_LIMIT {
            tracing::warn!(what = %what, pages = MAX_PAGES, "http.pagination_truncated");
        }
        Ok(items)
    }

    /// The body of `GET {base}/api/v4/{path}?{query}`, read up to `max_body` bytes
    /// (an archive): a longer one is refused rather than held in memory.
    pub(crate) async fn download(
        &self,
        path: &str,
        query: &[(&str, &str)],
        max_body: u64,
    ) -> Result<Bytes, PlatformError> {
        let mut url = self.rest_endpoint(path).map_err(gl_error)?;
        url.query_pairs_mut().extend_pairs(query);
        self.guard(&url).map_err(gl_error)?;
        let response = self
            .http
            .send_bounded(|c| self.authorize(c.get(url.clone())), max_body)
            .await
            .map_err(platform_error)?;
        Ok(response.body)
    }

    /// Page `page` of a list with GitLab's `X-Total` / `X-Next-Page` read: the crate's
    /// `paged` starts at page 1 and never shows the headers.
    pub(crate) async fn one_page<E, T>(
        &self,
        endpoint: &E,
        page: u32,
        per_page: u32,
    ) -> Result<PlatformPage<T>, PlatformError>
    where
        E: Endpoint,
        T: DeserializeOwned,
    {
        let mut url = endpoint
            .url_base()
            .endpoint_for(self, &endpoint.endpoint())
            .map_err(gl_error)?;
        endpoint.parameters().add_to_url(&mut url);
        url.query_pairs_mut()
            .append_pair("page", &page.to_string())
            .append_pair("per_page", &per_page.to_string());
        let request = http::Request::builder()
            .method(endpoint.method())
            .uri(url.as_str());
        let response = self
            .rest_async(request, Vec::new())
            .await
            .map_err(gl_error)?;
        let items = serde_json::from_slice(response.body())
            .map_err(|e| PlatformError::InvalidResponse(e.to_string()))?;
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::trim)
        };
        Ok(PlatformPage {
            items,
            page,
            per_page,
            total: header("x-total").and_then(|v| v.parse().ok()),
            has_next: header("x-next-page").is_some_and(|v| !v.is_empty()),
        })
    }
}

impl RestClient for GlRest {
    type Error = HttpError;

    fn rest_endpoint(&self, endpoint: &str) -> Result<Url, ApiError<HttpError>> {
        Ok(Url::parse(&format!("{}/api/v4/{endpoint}", self.base))?)
    }

    fn instance_endpoint(&self, endpoint: &str) -> Result<Url, ApiError<HttpError>> {
        Ok(Url::parse(&format!("{}/{endpoint}", self.base))?)
    }
}

#[async_trait]
impl AsyncClient for GlRest {
    async fn rest_async(
        &self,
        request: http::request::Builder,
        body: Vec<u8>,
    ) -> Result<http::Response<Bytes>, ApiError<HttpError>> {
        let (parts, body) = request
            .body(body)
            .map_err(|e| {
                ApiError::client(HttpError::Connect(format!("building the request: {e}")))
            })?
            .into_parts();
        let mut url = Url::parse(&parts.uri.to_string())?;
        self.guard(&url)?;
        // A builder without parameters leaves a bare `?`.
        if url.query() == Some("") {
            url.set_query(None);
        }
        let response = self
            .http
            .send(|c| {
                let request = c
                    .request(parts.method.clone(), url.clone())
                    .headers(parts.headers.clone());
                let request = if body.is_empty() {
                    request
                } else {
                    request.body(body.clone())
                };
                self.authorize(request)
            })
            .await
            .map_err(ApiError::client)?;
        let mut answer = http::Response::builder().status(response.status);
        if let Some(headers) = answer.headers_mut() {
            *headers = response.headers;
        }
        answer
            .body(response.body)
            .map_err(|e| ApiError::client(HttpError::Decode(e.to_string())))
    }
}

/// How a call through the crate failed, as the port names it: our client's HTTP
/// errors as every adapter maps them; what the crate itself refuses (JSON it cannot
/// read, a bad URL) is an invalid response.
pub(crate) fn gl_error(err: ApiError<HttpError>) -> PlatformError {
    match err {
        ApiError::Client { source } => platform_error(source),
        ApiError::GitlabRateLimited { retry_after, .. } => PlatformError::RateLimited {
            retry_after: Some(retry_after),
        },
        other => PlatformError::InvalidResponse(other.to_string()),
    }
}

/// A builder missing a required field: a bug of ours, reported rather than panicking.
pub(crate) fn built(err: impl std::fmt::Display) -> PlatformError {
    PlatformError::InvalidResponse(format!("building a GitLab request: {err}"))
}

/// `endpoint` read page by page (`page=N`) even where the crate would switch to
/// keyset pagination (`/projects` ordered by id): keyset `Link`s point at GitLab's
/// `external_url`, which need not be the URL reviewd is configured with, and
/// offset pages reach GitLab's 50,000-item offset limit only where [`LIST_LIMIT`]
/// stops anyway.
pub(crate) struct OffsetPaged<E>(pub E);

impl<E: Endpoint> Endpoint for OffsetPaged<E> {
    fn method(&self) -> Method {
        self.0.method()
    }

    fn endpoint(&self) -> Cow<'static, str> {
        self.0.endpoint()
    }

    fn url_base(&self) -> UrlBase {
        self.0.url_base()
    }

    fn parameters(&self) -> QueryParams<'_> {
        self.0.parameters()
    }

    fn body(&self) -> Result<Option<(&'static str, Vec<u8>)>, BodyError> {
        self.0.body()
    }
}

impl<E> Pageable for OffsetPaged<E> {}
