use reqwest::{Client, RequestBuilder};
use reviewd_domain::model::{PlatformConnection, PlatformPage, SecretString};
use reviewd_domain::ports::PlatformError;
use reviewd_http::{HttpClient, HttpResponse, collect_pages, next_link, platform_error};
use serde::de::DeserializeOwned;

/// GitHub's REST API at github.com or an Enterprise Server, through one token.
pub struct GithubPlatform {
    pub(crate) http: HttpClient,
    api: String,
    token: SecretString,
}

/// `https://github.com` and `https://api.github.com` mean the public API; any other
/// base is an Enterprise Server, whose API lives under `/api/v3`.
#[must_use]
pub fn api_base(base_url: &str) -> String {
    let base = base_url.trim_end_matches('/');
    match base {
        "https://github.com" | "https://www.github.com" | "https://api.github.com" => {
            "https://api.github.com".to_owned()
        }
        b if b.ends_with("/api/v3") => b.to_owned(),
        b => format!("{b}/api/v3"),
    }
}

impl GithubPlatform {
    #[must_use]
    pub fn new(http: HttpClient, connection: &PlatformConnection) -> Self {
        Self {
            http,
            api: api_base(&connection.base_url),
            token: connection.token.clone(),
        }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.api)
    }

    pub(crate) async fn send(
        &self,
        build: impl Fn(&Client) -> RequestBuilder,
    ) -> Result<HttpResponse, PlatformError> {
        self.http
            .send(|c| {
                build(c)
                    .bearer_auth(self.token.expose())
                    .header("Accept", "application/vnd.github+json")
                    .header("X-GitHub-Api-Version", "2022-11-28")
            })
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

    /// One page; GitHub tells only whether there is a next one (`Link: rel="next"`).
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
        let has_next = response.header("link").and_then(next_link).is_some();
        Ok(PlatformPage {
            items,
            page,
            per_page,
            total: None,
            has_next,
        })
    }

    pub(crate) async fn get_all<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<Vec<T>, PlatformError> {
        collect_pages(path, |page| self.get_page(path, query, page, 100)).await
    }
}
