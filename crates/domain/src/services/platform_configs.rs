//! Platform configs: connections to hostA/hostB instances, their secrets, the one
//! default per platform type, token checks and the hostA OAuth2 flow.

use super::platform_access::platform_for;
use super::{FieldError, ServiceError};
use crate::ErrorCode;
use crate::model::{
    AuthType, MASK, NewPlatformConfig, PlatformConfig, PlatformConfigChanges, PlatformConnection,
    PlatformPage, PlatformType, PlatformUser, SecretString, TokenIdentity,
};
use crate::ports::{
    PlatformClients, PlatformConfigRepository, PlatformError, ProjectRef, RepoError, TokenHasher,
};
use std::sync::Arc;
use uuid::Uuid;

/// The scope a hostA token needs to review merge requests and manage hooks.
pub const HOST_A_REQUIRED_SCOPE: &str = "api";

/// A new config as submitted (secrets in clear, as the user typed them).
#[derive(Debug, Clone)]
pub struct PlatformConfigInput {
    pub name: String,
    pub platform_type: PlatformType,
    pub base_url: String,
    pub auth_type: Option<AuthType>,
    pub access_token: Option<String>,
    pub app_id: Option<String>,
    pub app_secret: Option<String>,
    pub webhook_secret: Option<String>,
    pub enabled: Option<bool>,
    pub is_default: Option<bool>,
}

/// A partial update. A secret sent back as `***` (what responses show) means "keep".
#[derive(Debug, Clone, Default)]
pub struct PlatformConfigPatch {
    pub name: Option<String>,
    pub platform_type: Option<PlatformType>,
    pub base_url: Option<String>,
    pub auth_type: Option<AuthType>,
    pub access_token: Option<String>,
    pub app_id: Option<String>,
    pub app_secret: Option<String>,
    pub webhook_secret: Option<String>,
    pub enabled: Option<bool>,
    pub is_default: Option<bool>,
}

/// Outcome of `test-connection`: never an error, a report.
#[derive(Debug, Clone)]
pub struct ConnectionReport {
    pub success: bool,
    pub message: String,
    pub identity: Option<TokenIdentity>,
    pub project_count: Option<usize>,
}

#[derive(Debug, Clone, Default)]
pub struct OAuthSettings {
    /// Origins (scheme://host[:port]) a redirect URI may point at: the `APP_URLs`.
    pub allowed_redirect_origins: Vec<String>,
}

pub struct PlatformConfigService {
    configs: Arc<dyn PlatformConfigRepository>,
    clients: Arc<dyn PlatformClients>,
    tokens: Arc<dyn TokenHasher>,
    oauth: OAuthSettings,
}

fn not_found(e: RepoError) -> ServiceError {
    ServiceError::from_repo(e, "platform config")
}

/// `None` and the mask mean "unchanged"; an empty string clears.
fn secret_change(value: Option<String>) -> Option<Option<SecretString>> {
    match value {
        None => None,
        Some(v) if v == MASK => None,
        Some(v) if v.trim().is_empty() => Some(None),
        Some(v) => Some(Some(SecretString::new(v.trim()))),
    }
}

fn normalize_base_url(url: &str) -> Result<String, ServiceError> {
    let trimmed = url.trim_end_matches('/');
    let parsed = crate::http_url::parse(trimmed, &["https", "http"])
        .map_err(|why| ServiceError::invalid("baseUrl", why))?;
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(ServiceError::invalid(
            "baseUrl",
            "must not carry a query or a fragment",
        ));
    }
    Ok(trimmed.to_owned())
}

fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let host = rest.split(['/', '?', '#']).next()?;
    (!host.is_empty()).then(|| format!("{}://{}", scheme.to_lowercase(), host.to_lowercase()))
}

impl PlatformConfigService {
    pub fn new(
        configs: Arc<dyn PlatformConfigRepository>,
        clients: Arc<dyn PlatformClients>,
        tokens: Arc<dyn TokenHasher>,
        oauth: OAuthSettings,
    ) -> Self {
        Self {
            configs,
            clients,
            tokens,
            oauth,
        }
    }

    /// # Errors
    /// Store failures.
    pub async fn list(
        &self,
        platform_type: Option<PlatformType>,
        enabled_only: bool,
    ) -> Result<Vec<PlatformConfig>, ServiceError> {
        Ok(self.configs.list(platform_type, enabled_only).await?)
    }

    /// The default config (hostA's first when both types have one), or none.
    ///
    /// # Errors
    /// Store failures.
    pub async fn default_config(&self) -> Result<Option<PlatformConfig>, ServiceError> {
        let mut defaults: Vec<_> = self
            .configs
            .list(None, false)
            .await?
            .into_iter()
            .filter(|c| c.is_default)
            .collect();
        defaults.sort_by_key(|c| c.platform_type != PlatformType::HostA);
        Ok(defaults.into_iter().next())
    }

    /// # Errors
    /// `NotFound` for an unknown id.
    pub async fn get(&self, id: Uuid) -> Result<PlatformConfig, ServiceError> {
        self.configs.get(id).await.map_err(not_found)
    }

    /// The decrypted access token (the route allows admins only).
    ///
    /// # Errors
    /// `NotFound` for an unknown id or a config without a token.
    pub async fn access_token(&self, id: Uuid) -> Result<SecretString, ServiceError> {
        self.get(id)
            .await?
            .access_token
            .ok_or(ServiceError::NotFound("access token"))
    }

    /// Validates and stores a config. Token configs are checked against the platform
    /// first: the token must be accepted and, on hostA, carry the `api` scope.
    ///
    /// # Errors
    /// `Invalid` naming the field at fault (including a rejected or under-scoped token,
    /// or a platform that cannot be reached at `baseUrl`).
    pub async fn create(&self, input: PlatformConfigInput) -> Result<PlatformConfig, ServiceError> {
        let auth_type = input.auth_type.unwrap_or(AuthType::Token);
        let base_url = normalize_base_url(&input.base_url)?;
        let name = input.name.trim().to_owned();
        let access_token = input
            .access_token
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty());
        let mut errors = Vec::new();
        if name.is_empty() {
            errors.push(FieldError::new("name", "must not be empty"));
        }
        match auth_type {
            AuthType::Token if access_token.is_none() => {
                errors.push(FieldError::new(
                    "accessToken",
                    "is required when authType is token",
                ));
            }
            AuthType::OAuth => {
                if input.app_id.as_deref().is_none_or(|s| s.trim().is_empty()) {
                    errors.push(FieldError::new(
                        "appId",
                        "is required when authType is oauth",
                    ));
                }
                if input
                    .app_secret
                    .as_deref()
                    .is_none_or(|s| s.trim().is_empty())
                {
                    errors.push(FieldError::new(
                        "appSecret",
                        "is required when authType is oauth",
                    ));
                }
            }
            AuthType::Token => {}
        }
        if !errors.is_empty() {
            return Err(ServiceError::Invalid(errors));
        }
        let access_token = access_token.map(SecretString::new);
        let scopes = match &access_token {
            Some(token) => self
                .verify_token(input.platform_type, &base_url, auth_type, token)
                .await?
                .scopes
                .unwrap_or_default(),
            None => Vec::new(),
        };
        let first_of_type = self
            .configs
            .list(Some(input.platform_type), false)
            .await?
            .is_empty();
        let config = self
            .configs
            .create(NewPlatformConfig {
                name,
                platform_type: input.platform_type,
                base_url,
                auth_type,
                access_token,
                app_id: input.app_id.map(|s| s.trim().to_owned()),
                app_secret: input.app_secret.map(|s| SecretString::new(s.trim())),
                webhook_secret: input
                    .webhook_secret
                    .filter(|s| !s.is_empty())
                    .map(SecretString::new),
                token_scopes: scopes,
                enabled: input.enabled.unwrap_or(true),
                // The first config of a type is its default unless the caller says not.
                is_default: input.is_default.unwrap_or(first_of_type),
            })
            .await?;
        tracing::info!(platform_config.id = %config.id, platform = %config.platform_type, "platform_config.created");
        Ok(config)
    }

    /// # Errors
    /// `NotFound`, `Invalid` (as for create), `Conflict` when un-defaulting the default
    /// or changing the platform type.
    pub async fn update(
        &self,
        id: Uuid,
        patch: PlatformConfigPatch,
    ) -> Result<PlatformConfig, ServiceError> {
        let current = self.get(id).await?;
        if patch
            .platform_type
            .is_some_and(|t| t != current.platform_type)
        {
            return Err(ServiceError::Conflict(
                "the platform type of a config cannot change; create a new config".into(),
            ));
        }
        if patch.is_default == Some(false) && current.is_default {
            return Err(ServiceError::Conflict(
                "each platform type keeps one default: make another config the default instead"
                    .into(),
            ));
        }
        let base_url = patch
            .base_url
            .as_deref()
            .map(normalize_base_url)
            .transpose()?;
        if patch.name.as_deref().is_some_and(|n| n.trim().is_empty()) {
            return Err(ServiceError::invalid("name", "must not be empty"));
        }
        let access_token = secret_change(patch.access_token);
        let auth_type = patch.auth_type.unwrap_or(current.auth_type);
        let effective_token = match &access_token {
            Some(new) => new.clone(),
            None => current.access_token.clone(),
        };
        let mut changes = PlatformConfigChanges {
            name: patch.name.map(|n| n.trim().to_owned()),
            auth_type: patch.auth_type,
            access_token,
            app_id: patch
                .app_id
                .map(|s| Some(s.trim().to_owned()).filter(|s| !s.is_empty())),
            app_secret: secret_change(patch.app_secret),
            webhook_secret: secret_change(patch.webhook_secret),
            enabled: patch.enabled,
            ..PlatformConfigChanges::default()
        };
        let target_changed =
            changes.access_token.is_some() || base_url.is_some() || patch.auth_type.is_some();
        if auth_type == AuthType::Token && target_changed {
            let token = effective_token.ok_or_else(|| {
                ServiceError::invalid("accessToken", "is required when authType is token")
            })?;
            let url = base_url.clone().unwrap_or_else(|| current.base_url.clone());
            let identity = self
                .verify_token(current.platform_type, &url, auth_type, &token)
                .await?;
            changes.token_scopes = Some(identity.scopes.unwrap_or_default());
        }
        changes.base_url = base_url;
        let mut config = self.configs.update(id, changes).await.map_err(not_found)?;
        if patch.is_default == Some(true) && !config.is_default {
            config = self.configs.set_default(id).await.map_err(not_found)?;
        }
        tracing::info!(platform_config.id = %id, "platform_config.updated");
        Ok(config)
    }

    /// # Errors
    /// `NotFound` for an unknown id.
    pub async fn set_default(&self, id: Uuid) -> Result<PlatformConfig, ServiceError> {
        self.configs.set_default(id).await.map_err(not_found)
    }

    /// Deletes a config; with linked projects only when `force`, which deletes them
    /// too. Returns how many projects went with it.
    ///
    /// # Errors
    /// `NotFound`; `BadRequest` (`PROJECTS_LINKED`) when projects are linked without `force`.
    pub async fn delete(&self, id: Uuid, force: bool) -> Result<u64, ServiceError> {
        self.get(id).await?;
        let linked = self.configs.count_projects(id).await?;
        if linked > 0 && !force {
            return Err(ServiceError::BadRequest {
                code: ErrorCode::ProjectsLinked,
                message: format!(
                    "{linked} project(s) are linked to this config; pass force=true to delete them with it"
                ),
            });
        }
        let deleted = self
            .configs
            .delete_with_projects(id)
            .await
            .map_err(not_found)?;
        tracing::info!(platform_config.id = %id, deleted_projects = deleted, "platform_config.deleted");
        Ok(deleted)
    }

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
    ) -> Result<ConnectionReport, ServiceError> {
        let base_url = normalize_base_url(base_url)?;
        let token = access_token
            .filter(|t| !t.trim().is_empty())
            .ok_or_else(|| {
                ServiceError::invalid("accessToken", "is required to test a connection")
            })?;
        let platform = self.clients.client(&PlatformConnection {
            platform_type,
            base_url,
            auth_type,
            token: SecretString::new(token.trim()),
        });
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
        if config.platform_type != PlatformType::HostA {
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

    /// Starts the OAuth2 flow: remembers a one-time `state` and the redirect URI, and
    /// returns the platform's authorization URL.
    ///
    /// # Errors
    /// `BadRequest` for a config that is not an OAuth hostA config; `Invalid` for a
    /// redirect URI outside the allowed application URLs.
    pub async fn oauth_authorize_url(
        &self,
        id: Uuid,
        redirect_uri: &str,
    ) -> Result<String, ServiceError> {
        let config = self.oauth_config(id).await?;
        self.check_redirect(redirect_uri)?;
        let app_id = config.app_id.clone().unwrap_or_default();
        let state = self.tokens.generate("oas_");
        let changes = PlatformConfigChanges {
            oauth_state: Some(Some(state.clone())),
            oauth_redirect_uri: Some(Some(redirect_uri.to_owned())),
            ..PlatformConfigChanges::default()
        };
        self.configs.update(id, changes).await.map_err(not_found)?;
        let oauth = self.oauth_flow(config.platform_type)?;
        Ok(oauth.authorize_url(&config.base_url, &app_id, redirect_uri, &state))
    }

    /// Finishes the flow: checks the pending authorization (same redirect URI, and the
    /// same `state` when the caller passes it back), exchanges the code, stores the tokens.
    ///
    /// # Errors
    /// `BadRequest` (`OAUTH_STATE_MISMATCH`) when no authorization is pending or it
    /// does not match; platform failures of the exchange.
    pub async fn oauth_callback(
        &self,
        id: Uuid,
        code: &str,
        redirect_uri: &str,
        state: Option<&str>,
    ) -> Result<PlatformConfig, ServiceError> {
        let config = self.oauth_config(id).await?;
        let mismatch = |why: &str| ServiceError::BadRequest {
            code: ErrorCode::OauthStateMismatch,
            message: why.to_owned(),
        };
        let pending_state = config.oauth_state.clone().ok_or_else(|| {
            mismatch("no OAuth authorization is pending for this config; request an auth-url first")
        })?;
        if config.oauth_redirect_uri.as_deref() != Some(redirect_uri) {
            return Err(mismatch(
                "redirectUri differs from the one used for the auth-url",
            ));
        }
        if state.is_some_and(|s| s != pending_state) {
            return Err(mismatch("state does not match the pending authorization"));
        }
        let oauth = self.oauth_flow(config.platform_type)?;
        let app_secret = config
            .app_secret
            .clone()
            .map(|s| s.expose().to_owned())
            .unwrap_or_default();
        let tokens = oauth
            .exchange_code(
                &config.base_url,
                config.app_id.as_deref().unwrap_or_default(),
                &app_secret,
                code,
                redirect_uri,
            )
            .await?;
        let changes = PlatformConfigChanges {
            access_token: Some(Some(tokens.access_token)),
            refresh_token: Some(tokens.refresh_token),
            token_expires_at: Some(tokens.expires_at),
            token_scopes: Some(tokens.scopes),
            oauth_state: Some(None),
            ..PlatformConfigChanges::default()
        };
        let config = self.configs.update(id, changes).await.map_err(not_found)?;
        tracing::info!(platform_config.id = %id, "platform_config.oauth_authorized");
        Ok(config)
    }

    /// Gets a new access token with the stored refresh token.
    ///
    /// # Errors
    /// `BadRequest` without a refresh token; platform failures.
    pub async fn oauth_refresh(&self, id: Uuid) -> Result<PlatformConfig, ServiceError> {
        let config = self.oauth_config(id).await?;
        let refresh_token =
            config
                .refresh_token
                .clone()
                .ok_or_else(|| ServiceError::BadRequest {
                    code: ErrorCode::NoRefreshToken,
                    message:
                        "this config has no refresh token; complete the OAuth authorization first"
                            .into(),
                })?;
        let oauth = self.oauth_flow(config.platform_type)?;
        let app_secret = config
            .app_secret
            .clone()
            .map(|s| s.expose().to_owned())
            .unwrap_or_default();
        let tokens = oauth
            .refresh(
                &config.base_url,
                config.app_id.as_deref().unwrap_or_default(),
                &app_secret,
                refresh_token.expose(),
            )
            .await?;
        let changes = PlatformConfigChanges {
            access_token: Some(Some(tokens.access_token)),
            // GitLab rotates refresh tokens: the old one stops working.
            refresh_token: Some(tokens.refresh_token.or(Some(refresh_token))),
            token_expires_at: Some(tokens.expires_at),
            token_scopes: Some(tokens.scopes),
            ..PlatformConfigChanges::default()
        };
        let config = self.configs.update(id, changes).await.map_err(not_found)?;
        tracing::info!(platform_config.id = %id, "platform_config.oauth_refreshed");
        Ok(config)
    }

    async fn oauth_config(&self, id: Uuid) -> Result<PlatformConfig, ServiceError> {
        let config = self.get(id).await?;
        if config.auth_type != AuthType::OAuth || config.app_id.is_none() {
            return Err(ServiceError::BadRequest {
                code: ErrorCode::NotAnOauthConfig,
                message: "this platform config does not use OAuth (authType oauth with an appId)"
                    .into(),
            });
        }
        Ok(config)
    }

    fn oauth_flow(
        &self,
        platform_type: PlatformType,
    ) -> Result<Arc<dyn crate::ports::PlatformOAuth>, ServiceError> {
        self.clients
            .oauth(platform_type)
            .ok_or(ServiceError::BadRequest {
                code: ErrorCode::UnsupportedPlatform,
                message: format!("OAuth is not available for {platform_type}"),
            })
    }

    fn check_redirect(&self, redirect_uri: &str) -> Result<(), ServiceError> {
        let allowed = origin_of(redirect_uri).is_some_and(|o| {
            self.oauth
                .allowed_redirect_origins
                .iter()
                .any(|a| origin_of(a).as_deref() == Some(o.as_str()))
        });
        if allowed {
            Ok(())
        } else {
            Err(ServiceError::invalid(
                "redirectUri",
                "must point at one of the application URLs (APP_URLs)",
            ))
        }
    }

    /// Asks the platform who the token is, and refuses tokens it rejects or (hostA)
    /// that lack the `api` scope.
    async fn verify_token(
        &self,
        platform_type: PlatformType,
        base_url: &str,
        auth_type: AuthType,
        token: &SecretString,
    ) -> Result<TokenIdentity, ServiceError> {
        let platform = self.clients.client(&PlatformConnection {
            platform_type,
            base_url: base_url.to_owned(),
            auth_type,
            token: token.clone(),
        });
        let identity = platform.token_identity().await.map_err(|e| match e {
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
        if platform_type == PlatformType::HostA && identity.scopes.is_none() {
            tracing::warn!(username = %identity.username, "platform_config.scopes_unknown");
        }
        Ok(identity)
    }
}

/// Why a token's scopes are not enough, when the platform reported them.
fn scope_problem(platform_type: PlatformType, identity: &TokenIdentity) -> Option<String> {
    let scopes = identity.scopes.as_ref()?;
    (platform_type == PlatformType::HostA && !scopes.iter().any(|s| s == HOST_A_REQUIRED_SCOPE))
        .then(|| {
            format!(
                "the token lacks the `{HOST_A_REQUIRED_SCOPE}` scope (it has: {})",
                if scopes.is_empty() {
                    "none".to_owned()
                } else {
                    scopes.join(", ")
                }
            )
        })
}

fn describe(e: &PlatformError) -> String {
    match e {
        PlatformError::Unauthorized(_) => "the platform rejected the token".to_owned(),
        other => other.to_string(),
    }
}
