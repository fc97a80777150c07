use reqwest::{Client, RequestBuilder};
use reviewd_domain::model::{PlatformConnection, PlatformPage, SecretString};
use reviewd_domain::ports::PlatformError;
use reviewd_http::{HttpClient, HttpResponse, collect_pages, next_link, platform_error};
use serde::de::DeserializeOwned;

/// GitHub's REST API at github.com or an Enterprise Server, through one token.
pub struct GithubPlatform {
    pub(crate) http: HttpClient,
    api: String,
    graphql: String,
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

/// Where the GraphQL API of the REST base `api` (as [`api_base`] makes it) lives:
/// `https://api.github.com/graphql` for github.com, `{host}/api/graphql` beside an
/// Enterprise Server's `{host}/api/v3`.
#[must_use]
pub fn graphql_endpoint(api: &str) -> String {
    match api.strip_suffix("/api/v3") {
        Some(host) => format!("{host}/api/graphql"),
        None => format!("{api}/graphql"),
    }
}

impl GithubPlatform {
    #[must_use]
    pub fn new(http: HttpClient, connection: &PlatformConnection) -> Self {
        let api = api_base(&connection.base_url);
        Self {
            http,
            graphql: graphql_endpoint(&api),
            api,
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
            .send(|c| self.authorized(build(c)))
            .await
            .map_err(platform_error)
    }

    /// A GraphQL query: a `POST` that only reads, so retried on 5xx and timeouts
    /// like a `GET`. GitHub answers a query it could not run with 200 and
    /// `errors` (see [`crate::graphql`]).
    pub(crate) async fn query<T: DeserializeOwned>(
        &self,
        query: &str,
        variables: &serde_json::Value,
    ) -> Result<T, PlatformError> {
        let body = serde_json::json!({ "query": query, "variables": variables });
        let response = self
            .http
            .send_repeatable(|c| self.authorized(c.post(&self.graphql).json(&body)))
            .await
            .map_err(platform_error)?;
        crate::graphql::data(&response.body)
    }

    fn authorized(&self, request: RequestBuilder) -> RequestBuilder {
        request
            .bearer_auth(self.token.expose())
            .header("Accept", "application/vnd.github+json")
            .header("X-GitHub-Api-Version", "2022-11-28")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graphql_lives_beside_the_rest_api() {
        let graphql = |base: &str| graphql_endpoint(&api_base(base));
        assert_eq!(
            graphql("https://github.com"),
            "https://api.github.com/graphql"
        );
        assert_eq!(
            graphql("https://api.github.com/"),
            "https://api.github.com/graphql"
        );
        assert_eq!(
            graphql("https://ghe.example.com"),
            "https://ghe.example.com/api/graphql"
        );
        assert_eq!(
            graphql("https://ghe.example.com/api/v3/"),
            "https://ghe.example.com/api/graphql"
        );
    }
}
