//! Checking a config's token against its platform (identity and scopes), and the
//! user search that goes through it.

use super::{PlatformConfigService, normalize_base_url};
use crate::ErrorCode;
use crate::model::{
    AppCredentials, AuthType, PlatformConnection, PlatformPage, PlatformType, PlatformUser,
    SecretString, TokenIdentity,
};
use crate::ports::{PlatformError, ProjectRef};
use crate::services::ServiceError;
use crate::services::platform_access::platform_for;
use uuid::Uuid;

/// The scope a hostA token needs to review merge requests and manage hooks.
pub const GITLAB_REQUIRED_SCOPE: &str = "api";

/// Outcome of `test-connection`: never an error, a report.
#[derive(Debug, Clone)]
pub struct ConnectionReport {
    pub success: bool,
    pub message: String,
    pub identity: Option<TokenIdentity>,
    pub project_count: Option<usize>,
}

impl PlatformConfigService {
    /// Tries a connection without storing anything.
    ///
    /// # Errors
    /// `Invalid` for a malformed `baseUrl` or missing token; platform failures are
    /// reported in the result, not as errors.
    pub async fn test_connection(
        &self,
        platform_type: PlatformType,
        base_url: &str,
        access_token: Option<&str>,
        auth_type: AuthType,
        app: Option<AppCredentials>,
    ) -> Result<ConnectionReport, ServiceError> {
        let base_url = normalize_base_url(base_url)?;
        let connection = if auth_type == AuthType::App {
            let app = app.ok_or_else(|| {
                ServiceError::invalid(
                    "privateKey",
                    "a GitHub App is tested with its appId and privateKey",
                )
            })?;
            PlatformConnection {
                platform_type,
                base_url,
                auth_type,
                token: SecretString::new(""),
                app: Some(app),
            }
        } else {
            let token = access_token
                .filter(|t| !t.trim().is_empty())
                .ok_or_else(|| {
                    ServiceError::invalid("accessToken", "is required to test a connection")
                })?;
            PlatformConnection {
                platform_type,
                base_url,
                auth_type,
                token: SecretString::new(token.trim()),
                app: None,
            }
        };
        let platform = self.clients.client(&connection);
        let failed = |message: String, identity: Option<TokenIdentity>| ConnectionReport {
            success: false,
            message,
            identity,
            project_count: None,
        };
        let identity = match platform.token_identity().await {
            Ok(identity) => identity,
            Err(e) => return Ok(failed(describe(&e), None)),
        };
        if let Some(problem) = scope_problem(platform_type, &identity) {
            return Ok(failed(problem, Some(identity)));
        }
        let projects = match platform.list_projects().await {
            Ok(projects) => projects,
            Err(e) => return Ok(failed(describe(&e), Some(identity))),
        };
        let count = projects.len();
        let (success, message) = if count == 0 {
            (
                false,
                format!(
                    "connected as {}, but the token sees no project",
                    identity.username
                ),
            )
        } else {
            (
                true,
                format!(
                    "connected as {}; {count} project(s) visible",
                    identity.username
                ),
            )
        };
        Ok(ConnectionReport {
            success,
            message,
            identity: Some(identity),
            project_count: Some(count),
        })
    }

    /// Users of a hostA instance (or of one of its projects, by platform project id).
    ///
    /// # Errors
    /// `NotFound`; `BadRequest` for a hostB config; platform failures.
    pub async fn search_users(
        &self,
        id: Uuid,
        search: Option<&str>,
        platform_project_id: Option<&str>,
        page: u32,
        per_page: u32,
    ) -> Result<PlatformPage<PlatformUser>, ServiceError> {
        let config = self.get(id).await?;
        if config.platform_type != PlatformType::Gitlab {
            return Err(ServiceError::BadRequest {
                code: ErrorCode::UnsupportedPlatform,
                message: "user search is available for hostA configs only".into(),
            });
        }
        let platform = platform_for(self.clients.as_ref(), &config)?;
        let project = platform_project_id.map(|id| ProjectRef {
            id: id.to_owned(),
            full_path: String::new(),
        });
        Ok(platform
            .search_users(search, project.as_ref(), page, per_page)
            .await?)
    }

    /// Asks the platform who the token is, and refuses tokens it rejects or (hostA)
    /// that lack the `api` scope.
    pub(super) async fn verify_token(
        &self,
        platform_type: PlatformType,
        base_url: &str,
        auth_type: AuthType,
        token: &SecretString,
    ) -> Result<TokenIdentity, ServiceError> {
        self.verify(PlatformConnection {
            platform_type,
            base_url: base_url.to_owned(),
            auth_type,
            token: token.clone(),
            app: None,
        })
        .await
    }

    /// Asks GitHub for the App itself, signed with its key: a wrong id or key is
    /// refused before anything is stored.
    pub(super) async fn verify_app(
        &self,
        base_url: &str,
        app: AppCredentials,
    ) -> Result<TokenIdentity, ServiceError> {
        self.verify(PlatformConnection {
            platform_type: PlatformType::Github,
            base_url: base_url.to_owned(),
            auth_type: AuthType::App,
            token: SecretString::new(""),
            app: Some(app),
        })
        .await
    }

    async fn verify(&self, connection: PlatformConnection) -> Result<TokenIdentity, ServiceError> {
        let platform_type = connection.platform_type;
        let is_app = connection.app.is_some();
        let platform = self.clients.client(&connection);
        let identity = platform.token_identity().await.map_err(|e| match e {
            PlatformError::Unauthorized(_) | PlatformError::Forbidden(_) if is_app => {
                ServiceError::invalid(
                    "privateKey",
                    &format!("GitHub refused the App's key (check appId and privateKey): {e}"),
                )
            }
            PlatformError::NotFound(_) if is_app => {
                ServiceError::invalid("appId", "GitHub knows no App with this id and key")
            }
            PlatformError::Unauthorized(_) | PlatformError::Forbidden(_) => {
                ServiceError::invalid("accessToken", "the platform rejected this token")
            }
            PlatformError::RateLimited { retry_after } => {
                ServiceError::Platform(PlatformError::RateLimited { retry_after })
            }
            other => {
                ServiceError::invalid("baseUrl", &format!("cannot reach the platform: {other}"))
            }
        })?;
        if let Some(problem) = scope_problem(platform_type, &identity) {
            return Err(ServiceError::invalid("accessToken", &problem));
        }
        if platform_type == PlatformType::Gitlab && identity.scopes.is_none() {
            tracing::warn!(username = %identity.username, "platform_config.scopes_unknown");
        }
        Ok(identity)
    }
}

/// Why a token's scopes are not enough, when the platform reported them.
pub(super) fn scope_problem(
    platform_type: PlatformType,
    identity: &TokenIdentity,
) -> Option<String> {
    let scopes = identity.scopes.as_ref()?;
    (platform_type == PlatformType::Gitlab && !scopes.iter().any(|s| s == GITLAB_REQUIRED_SCOPE))
        .then(|| {
            format!(
                "the token lacks the `{GITLAB_REQUIRED_SCOPE}` scope (it has: {})",
                if scopes.is_empty() {
                    "none".to_owned()
                } else {
                    scopes.join(", ")
                }
            )
        })
}

pub(super) fn describe(e: &PlatformError) -> String {
    match e {
        PlatformError::Unauthorized(_) => "the platform rejected the token".to_owned(),
        other => other.to_string(),
    }
}
