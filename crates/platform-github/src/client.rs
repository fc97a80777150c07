use crate::route_repo::Repository;
use crate::stack::{ApiLayer, PolicyLayer};
use bytes::Bytes;
use http_body_util::BodyExt;
use http_body_util::combinators::BoxBody;
use octocrab::auth::AppAuth;
use octocrab::models::AppId;
use octocrab::service::middleware::reqwest_connector::ReqwestConnector;
use octocrab::{AuthState, EncodingKey, Octocrab, OctocrabBuilder, Page};
use reviewd_domain::model::{AuthType, PlatformConnection, PlatformPage, SecretString};
use reviewd_domain::ports::PlatformError;
use reviewd_http::{HttpClient, HttpError, classify, collect_pages, platform_error};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// GitHub's REST and GraphQL APIs at github.com or an Enterprise Server, through
/// octocrab on the shared reqwest client and retry policy: one client for a token,
/// or for a GitHub App one for the App (its JWT) and one per installation.
pub struct GithubPlatform {
    pub(crate) http: HttpClient,
    /// What the client is built from, or why it cannot be.
    setup: Result<Setup, PlatformError>,
    /// The client of the config's own credentials: its token, or the App's JWT.
    /// Built at the first call: octocrab spawns its request queue's worker on the
    /// tokio runtime it is built in, and a platform may be made outside one.
    crab: OnceLock<Arc<Octocrab>>,
    /// A GitHub App's installation clients, by installation id. Each caches its
    /// installation token, and a clone of an `Octocrab` copies the cache rather than
    /// sharing it: a client is made once and kept, never cloned per call.
    pub(crate) installations: Mutex<HashMap<u64, Arc<Octocrab>>>,
    /// The installation each repository met so far is reached through.
    pub(crate) installation_of: Mutex<HashMap<Repository, u64>>,
    /// For a GitHub App: the login its comments show (`{slug}[bot]`), read once.
    pub(crate) app_login: OnceLock<String>,
}

struct Setup {
    api: ApiLayer,
    auth: GithubAuth,
}

/// How the client authenticates.
enum GithubAuth {
    /// A personal access token or an OAuth token, sent as a bearer.
    Token(SecretString),
    /// A GitHub App: App calls signed with its JWT, repository calls with the token
    /// of the installation that reaches the repository.
    App {
        app_id: u64,
        key: EncodingKey,
        /// Only this installation, as the config says; `None` for every one.
        installation_id: Option<u64>,
    },
}

impl GithubAuth {
    fn new(connection: &PlatformConnection) -> Result<Self, PlatformError> {
        match (&connection.app, connection.auth_type) {
            (Some(app), _) => {
                let key = EncodingKey::from_rsa_pem(app.private_key.expose().as_bytes()).map_err(
                    |_| {
                        PlatformError::Unauthorized(
                            "the GitHub App's private key is not a valid RSA key in PEM".into(),
                        )
                    },
                )?;
                Ok(GithubAuth::App {
                    app_id: app.app_id,
                    key,
                    installation_id: app.installation_id,
                })
            }
            (None, AuthType::App) => Err(PlatformError::Unauthorized(
                "the GitHub App config has no App id and private key".into(),
            )),
            (None, AuthType::Token | AuthType::OAuth) => {
                Ok(GithubAuth::Token(connection.token.clone()))
            }
        }
    }

    fn state(&self) -> AuthState {
        match self {
            GithubAuth::Token(token) => AuthState::AccessToken {
                token: token.expose().to_owned().into(),
            },
            GithubAuth::App { app_id, key, .. } => AuthState::App(AppAuth {
                app_id: AppId(*app_id),
                key: key.clone(),
            }),
        }
    }
}

/// What an octocrab call answers before its body is read.
pub(crate) type RawResponse = http::Response<BoxBody<Bytes, octocrab::Error>>;

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
    /// Whether it acts as a GitHub App (which has check runs; a token has statuses).
    pub(crate) fn is_app(&self) -> bool {
        matches!(
            &self.setup,
            Ok(Setup {
                auth: GithubAuth::App { .. },
                ..
            })
        )
    }

    /// A platform for `connection`. A configuration that cannot work (a base URL
    /// that is no URL, an App key that is no RSA key in PEM) makes a platform whose
    /// every call reports it.
    #[must_use]
    pub fn new(http: HttpClient, connection: &PlatformConnection) -> Self {
        let api = api_base(&connection.base_url);
        let api = ApiLayer::new(&api, &graphql_endpoint(&api)).map_err(|e| {
            PlatformError::Unavailable(format!("the platform's base URL is not usable: {e}"))
        });
        let auth = GithubAuth::new(connection);
        Self {
            http,
            setup: api.and_then(|api| auth.map(|auth| Setup { api, auth })),
            crab: OnceLock::new(),
            installations: Mutex::new(HashMap::new()),
            installation_of: Mutex::new(HashMap::new()),
            app_login: OnceLock::new(),
        }
    }

    /// The client of the config's own credentials (for an App: its JWT).
    pub(crate) fn crab(&self) -> Result<&Arc<Octocrab>, PlatformError> {
        let setup = self.setup.as_ref().map_err(Clone::clone)?;
        Ok(self.crab.get_or_init(|| {
            // No octocrab `retry` layer, no redirect or cache layer: reqwest follows
            // redirects, and the policy layer is the only one that retries.
            let built = OctocrabBuilder::new_empty()
                .with_service(ReqwestConnector::new(self.http.reqwest().clone()))
                .with_layer(&PolicyLayer::new(self.http.policy()))
                .with_layer(&setup.api)
                .with_auth(setup.auth.state())
                .build();
            match built {
                Ok(crab) => Arc::new(crab),
                Err(never) => match never {},
            }
        }))
    }

    /// For a GitHub App: the installation the config is limited to, if any
    /// (`Some(None)`: every installation); `None` for a token config.
    pub(crate) fn app_installation(&self) -> Result<Option<Option<u64>>, PlatformError> {
        let setup = self.setup.as_ref().map_err(Clone::clone)?;
        Ok(match setup.auth {
            GithubAuth::Token(_) => None,
            GithubAuth::App {
                installation_id, ..
            } => Some(installation_id),
        })
    }

    /// The client a route goes through: for a GitHub App, a route about a
    /// repository (`/repos/{owner}/{name}/…`, `/repositories/{id}/…`) goes through
    /// the installation that reaches it, any other with the App's JWT.
    pub(crate) async fn client(&self, route: &str) -> Result<Arc<Octocrab>, PlatformError> {
        let own = self.crab()?;
        if self.app_installation()?.is_none() {
            return Ok(own.clone());
        }
        match Repository::of_route(route) {
            Some(repository) => {
                let installation = self.installation_for(&repository).await?;
                self.installation(installation)
            }
            None => Ok(own.clone()),
        }
    }

    /// A `GET` whose answer is `T`; `query` may be empty.
    pub(crate) async fn get_json<T: DeserializeOwned>(
        &self,
        route: &str,
        query: &[(&str, String)],
    ) -> Result<T, PlatformError> {
        let query = (!query.is_empty()).then_some(query);
        self.client(route)
            .await?
            .get(route, query)
            .await
            .map_err(github_error)
    }

    /// One page, asked for by number on the relative route: octocrab would send the
    /// `Link` URLs of the next pages without the token, as they are absolute and
    /// not api.github.com on an Enterprise Server. GitHub tells only whether there
    /// is a next page.
    pub(crate) async fn get_page<T: DeserializeOwned>(
        &self,
        route: &str,
        query: &[(&str, String)],
        page: u32,
        per_page: u32,
    ) -> Result<PlatformPage<T>, PlatformError> {
        let crab = self.client(route).await?;
        get_page_on(&crab, route, query, page, per_page).await
    }

    pub(crate) async fn get_all<T: DeserializeOwned>(
        &self,
        route: &str,
        query: &[(&str, String)],
    ) -> Result<Vec<T>, PlatformError> {
        collect_pages(route, |page| self.get_page(route, query, page, 100)).await
    }

    /// A `GET` whose headers matter too (`x-oauth-scopes`).
    pub(crate) async fn get_response(&self, route: &str) -> Result<RawResponse, PlatformError> {
        let response = self
            .client(route)
            .await?
            ._get(route)
            .await
            .map_err(github_error)?;
        succeeded(response).await
    }

    /// A `POST` whose answer is `T`.
    pub(crate) async fn post_json<T: DeserializeOwned>(
        &self,
        route: &str,
        body: &(impl Serialize + ?Sized),
    ) -> Result<T, PlatformError> {
        self.client(route)
            .await?
            .post(route, Some(body))
            .await
            .map_err(github_error)
    }

    /// A `POST` whose answer is not read.
    pub(crate) async fn post_unread(
        &self,
        route: &str,
        body: &(impl Serialize + ?Sized),
    ) -> Result<(), PlatformError> {
        let response = self
            .client(route)
            .await?
            ._post(route, Some(body))
            .await
            .map_err(github_error)?;
        succeeded(response).await.map(drop)
    }

    /// A `PATCH` whose answer is not read.
    pub(crate) async fn patch_unread(
        &self,
        route: &str,
        body: &(impl Serialize + ?Sized),
    ) -> Result<(), PlatformError> {
        let response = self
            .client(route)
            .await?
            ._patch(route, Some(body))
            .await
            .map_err(github_error)?;
        succeeded(response).await.map(drop)
    }

    /// A `DELETE` (GitHub answers 204, no body).
    pub(crate) async fn delete(&self, route: &str) -> Result<(), PlatformError> {
        let response = self
            .client(route)
            .await?
            ._delete(route, None::<&()>)
            .await
            .map_err(github_error)?;
        succeeded(response).await.map(drop)
    }

    /// A GraphQL query about the repository of route `repo` (whose installation a
    /// GitHub App asks through): a `POST` that only reads, so the policy layer
    /// retries it on 5xx and timeouts like a `GET`. GitHub answers a query it could
    /// not run with 200 and `errors` (see [`crate::graphql`]).
    pub(crate) async fn query<T: DeserializeOwned>(
        &self,
        repo: &str,
        query: &str,
        variables: &serde_json::Value,
    ) -> Result<T, PlatformError> {
        let body = serde_json::json!({ "query": query, "variables": variables });
        let response = self
            .client(repo)
            .await?
            ._post("/graphql", Some(&body))
            .await
            .map_err(github_error)?;
        let body = read_body(succeeded(response).await?).await?;
        crate::graphql::data(&body)
    }
}

/// One page of `route` through client `crab` (see [`GithubPlatform::get_page`]).
pub(crate) async fn get_page_on<T: DeserializeOwned>(
    crab: &Octocrab,
    route: &str,
    query: &[(&str, String)],
    page: u32,
    per_page: u32,
) -> Result<PlatformPage<T>, PlatformError> {
    let mut query = query.to_vec();
    query.extend([
        ("page", page.to_string()),
        ("per_page", per_page.to_string()),
    ]);
    let answer: Page<T> = crab.get(route, Some(&query)).await.map_err(github_error)?;
    Ok(PlatformPage {
        has_next: answer.next.is_some(),
        items: answer.items,
        page,
        per_page,
        total: None,
    })
}

/// Every page of `route` through client `crab`.
pub(crate) async fn get_all_on<T: DeserializeOwned>(
    crab: &Octocrab,
    route: &str,
) -> Result<Vec<T>, PlatformError> {
    collect_pages(route, |page| get_page_on(crab, route, &[], page, 100)).await
}

/// The response of a 2xx; a failure as [`github_error`] reports it.
pub(crate) async fn succeeded(response: RawResponse) -> Result<RawResponse, PlatformError> {
    octocrab::map_github_error(response)
        .await
        .map_err(github_error)
}

pub(crate) async fn read_body(response: RawResponse) -> Result<Bytes, PlatformError> {
    response
        .into_body()
        .collect()
        .await
        .map(http_body_util::Collected::to_bytes)
        .map_err(github_error)
}

/// A failed octocrab call as every other platform call reports it: a final non-2xx
/// answer is classified from its status, headers and message (rate limits included)
/// as `reviewd_http` does; a call that got no answer carries the policy layer's
/// [`HttpError`].
pub(crate) fn github_error(error: octocrab::Error) -> PlatformError {
    match error {
        octocrab::Error::GitHub { source, .. } => {
            let headers = source.headers.clone().unwrap_or_default();
            let body = serde_json::json!({ "message": source.message }).to_string();
            platform_error(classify(
                source.status_code.as_u16(),
                &headers,
                body.as_bytes(),
            ))
        }
        octocrab::Error::Service { source, .. } => {
            let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(source.as_ref());
            while let Some(error) = cause {
                if let Some(http) = error.downcast_ref::<HttpError>() {
                    return platform_error(http.clone());
                }
                cause = error.source();
            }
            PlatformError::Unavailable(source.to_string())
        }
        octocrab::Error::Json { .. } | octocrab::Error::Serde { .. } => {
            PlatformError::InvalidResponse(error.to_string())
        }
        other => PlatformError::Unavailable(other.to_string()),
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
