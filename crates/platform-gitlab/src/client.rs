use reqwest::{Client, RequestBuilder};
use reviewd_domain::model::{AuthType, PlatformConnection, PlatformPage, SecretString};
use reviewd_domain::ports::PlatformError;
use reviewd_http::{HttpClient, HttpResponse, collect_pages, platform_error};
use serde::de::DeserializeOwned;

/// GitLab's REST API v4 at one instance, through one token.
pub struct GitlabPlatform {
    pub(crate) http: HttpClient,
    base: String,
    api: String,
    token: SecretString,
    auth_type: AuthType,
}

impl GitlabPlatform {
    #[must_use]
    pub fn new(http: HttpClient, connection: &PlatformConnection) -> Self {
        let base = connection.base_url.trim_end_matches('/').to_owned();
        Self {
            http,
            api: format!("{base}/api/v4"),
            base,
            token: connection.token.clone(),
            auth_type: connection.auth_type,
        }
    }

    /// Personal and project tokens go in `PRIVATE-TOKEN`, OAuth tokens as a bearer.
    fn authorize(&self, request: RequestBuilder) -> RequestBuilder {
        match self.auth_type {
            AuthType::Token => request.header("PRIVATE-TOKEN", self.token.expose()),
            AuthType::OAuth => request.bearer_auth(self.token.expose()),
        }
    }

    /// An API v4 URL.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.api)
    }

    /// A URL outside the API (OAuth endpoints).
    pub(crate) fn instance_url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub(crate) async fn send(
        &self,
        build: impl Fn(&Client) -> RequestBuilder,
    ) -> Result<HttpResponse, PlatformError> {
        self.http
            .send(|c| self.authorize(build(c)))
            .await
            .map_err(platform_error)
    }

    pub(crate) async fn get_json<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<T, PlatformError> {
        let url = self.url(path);
        self.send(|c| c.get(&url).query(query))
            .await?
            .json()
            .map_err(platform_error)
    }

    /// One page, with GitLab's `X-Total` / `X-Next-Page` headers read.
    pub(crate) async fn get_page<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
        page: u32,
        per_page: u32,
    ) -> Result<PlatformPage<T>, PlatformError> {
        let url = self.url(path);
        let response = self
            .send(|c| {
                c.get(&url)
                    .query(query)
                    .query(&[("page", page), ("per_page", per_page)])
            })
            .await?;
        let items = response.json().map_err(platform_error)?;
        let has_next = response
            .header("x-next-page")
            .is_some_and(|v| !v.trim().is_empty());
        let total = response
            .header("x-total")
            .and_then(|v| v.trim().parse().ok());
        Ok(PlatformPage {
            items,
            page,
            per_page,
            total,
            has_next,
        })
    }

    /// Every page of a list.
    pub(crate) async fn get_all<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<Vec<T>, PlatformError> {
        collect_pages(path, |page| self.get_page(path, query, page, 100)).await
    }
}

/// A project id for a URL path: numeric ids as they are, paths URL-encoded.
pub(crate) fn project_segment(id: &str) -> String {
    url::form_urlencoded::byte_serialize(id.as_bytes()).collect()
}
