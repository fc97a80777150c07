//! Platform configs: the stored connections to hostA/hostB instances, their
//! secrets, and which one is the default. Connection checks and OAuth are in
//! the submodules.

mod connection;
mod oauth;

pub use connection::ConnectionReport;
pub use oauth::OAuthSettings;

use super::{FieldError, ServiceError};
use crate::ErrorCode;
use crate::model::{
    AuthType, MASK, NewPlatformConfig, PlatformConfig, PlatformConfigChanges, PlatformType,
    SecretString,
};
use crate::ports::{PlatformClients, PlatformConfigRepository, RepoError, TokenHasher};
use std::sync::Arc;
use uuid::Uuid;

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
pub(crate) fn secret_change(value: Option<String>) -> Option<Option<SecretString>> {
    match value {
        None => None,
        Some(v) if v == MASK => None,
        Some(v) if v.trim().is_empty() => Some(None),
        Some(v) => Some(Some(SecretString::new(v.trim()))),
    }
}

fn normalize_base_url(url: &str) -> Result<String, ServiceError> {
    normalize_url(url, "baseUrl")
}

/// An `http(s)://` API base without trailing slashes, query or fragment; a bad one
/// is `Invalid` on `field`.
pub(crate) fn normalize_url(url: &str, field: &str) -> Result<String, ServiceError> {
    let trimmed = url.trim_end_matches('/');
    let parsed = crate::http_url::parse(trimmed, &["https", "http"])
        .map_err(|why| ServiceError::invalid(field, why))?;
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(ServiceError::invalid(
            field,
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
}
