//! Platform configs: the stored connections to hostA/hostB instances, their
//! secrets, and which one is the default. Connection checks and OAuth are in
//! the submodules.

mod connection;
mod oauth;
mod webhook_senders;

pub use connection::ConnectionReport;
pub use oauth::OAuthSettings;
pub use webhook_senders::UnknownSender;

use super::{FieldError, ServiceError};
use crate::ErrorCode;
use crate::model::{
    AuthType, MASK, NewPlatformConfig, PlatformConfig, PlatformConfigChanges, PlatformType,
    SecretString,
};
use crate::ports::{
    PlatformClients, PlatformConfigRepository, RepoError, TokenHasher, WebhookVerifier,
};
use crate::services::platform_access::app_credentials;
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
    /// `app` configs: the GitHub App's private key (PEM).
    pub private_key: Option<String>,
    /// `app` configs: one installation to use instead of all.
    pub installation_id: Option<i64>,
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
    pub private_key: Option<String>,
    /// `Some(None)` clears it (every installation).
    pub installation_id: Option<Option<i64>>,
}

pub struct PlatformConfigService {
    configs: Arc<dyn PlatformConfigRepository>,
    clients: Arc<dyn PlatformClients>,
    tokens: Arc<dyn TokenHasher>,
    webhooks: Arc<dyn WebhookVerifier>,
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

/// What is wrong with a GitHub App config: the App's numeric id, its private key
/// in PEM (the key GitHub hands out is PKCS#1, `BEGIN RSA PRIVATE KEY`; PKCS#8
/// works too), a positive installation id. Whether the key is the App's is for the
/// platform to say.
fn app_errors(
    platform_type: PlatformType,
    app_id: Option<&str>,
    private_key: Option<&str>,
    installation_id: Option<i64>,
) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if platform_type != PlatformType::Github {
        errors.push(FieldError::new(
            "authType",
            "app (a GitHub App installation) is for hostB configs only",
        ));
    }
    match app_id.map(str::trim) {
        None | Some("") => {
            errors.push(FieldError::new("appId", "is required when authType is app"))
        }
        Some(id) if !matches!(id.parse::<u64>(), Ok(n) if n > 0) => errors.push(FieldError::new(
            "appId",
            "is the GitHub App's numeric id (App settings > General > App ID)",
        )),
        Some(_) => {}
    }
    match private_key.map(str::trim) {
        None | Some("") => errors.push(FieldError::new(
            "privateKey",
            "is required when authType is app",
        )),
        Some(key)
            if !(key.starts_with("-----BEGIN ")
                && key.contains("PRIVATE KEY-----")
                && key.ends_with("-----")) =>
        {
            errors.push(FieldError::new(
                "privateKey",
                "must be the App's private key in PEM, as downloaded from GitHub \
                 (-----BEGIN RSA PRIVATE KEY----- ...)",
            ));
        }
        Some(_) => {}
    }
    if installation_id.is_some_and(|id| id <= 0) {
        errors.push(FieldError::new(
            "installationId",
            "must be a positive number",
        ));
    }
    errors
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
        webhooks: Arc<dyn WebhookVerifier>,
        oauth: OAuthSettings,
    ) -> Self {
        Self {
            configs,
            clients,
            tokens,
            webhooks,
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
        defaults.sort_by_key(|c| c.platform_type != PlatformType::Gitlab);
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
            AuthType::App => {
                errors.extend(app_errors(
                    input.platform_type,
                    input.app_id.as_deref(),
                    input.private_key.as_deref(),
                    input.installation_id,
                ));
            }
            AuthType::Token => {}
        }
        if !errors.is_empty() {
            return Err(ServiceError::Invalid(errors));
        }
        let access_token = access_token
            .filter(|_| auth_type != AuthType::App)
            .map(SecretString::new);
        let private_key = input
            .private_key
            .filter(|_| auth_type == AuthType::App)
            .map(|k| SecretString::new(k.trim()));
        let scopes = match (&access_token, auth_type) {
            (_, AuthType::App) => {
                let app = app_credentials(
                    input.app_id.as_deref(),
                    private_key.as_ref(),
                    input.installation_id,
                )
                .ok_or_else(|| {
                    ServiceError::invalid("appId", "is required when authType is app")
                })?;
                self.verify_app(&base_url, app).await?;
                Vec::new()
            }
            (Some(token), _) => self
                .verify_token(input.platform_type, &base_url, auth_type, token)
                .await?
                .scopes
                .unwrap_or_default(),
            (None, _) => Vec::new(),
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
                private_key,
                installation_id: input.installation_id.filter(|_| auth_type == AuthType::App),
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
            private_key: secret_change(patch.private_key),
            installation_id: patch.installation_id,
            ..PlatformConfigChanges::default()
        };
        // A stored secret goes only to the address it was entered for: whoever
        // may edit a config must not collect its token or key by pointing it
        // (and its check) at a host of their own.
        let moved = base_url
            .as_deref()
            .is_some_and(|url| url != current.base_url.trim_end_matches('/'));
        if moved {
            match auth_type {
                AuthType::App if changes.private_key.is_none() && current.private_key.is_some() => {
                    return Err(ServiceError::invalid(
                        "privateKey",
                        "type the App's key again to use it at another address",
                    ));
                }
                AuthType::Token
                    if changes.access_token.is_none() && current.access_token.is_some() =>
                {
                    return Err(ServiceError::invalid(
                        "accessToken",
                        "type the token again to use it at another address",
                    ));
                }
                AuthType::OAuth if changes.app_secret.is_none() && current.app_secret.is_some() => {
                    return Err(ServiceError::invalid(
                        "appSecret",
                        "type the OAuth application's secret again to use it at another address",
                    ));
                }
                _ => {}
            }
            // Every other secret entered for the old host stays behind too, whatever
            // the auth type: switching the type later must not send one there.
            changes.access_token = changes.access_token.take().or(Some(None));
            changes.app_secret = changes.app_secret.take().or(Some(None));
            changes.private_key = changes.private_key.take().or(Some(None));
            changes.refresh_token = Some(None);
            changes.token_expires_at = Some(None);
        }
        if auth_type != AuthType::App {
            // Only an App config has a key and an installation; one that stops
            // being an App forgets them.
            let was_app = current.auth_type == AuthType::App;
            changes.private_key = was_app.then_some(None);
            changes.installation_id = was_app.then_some(None);
        }
        if auth_type == AuthType::App {
            let app_id = match &changes.app_id {
                Some(id) => id.clone(),
                None => current.app_id.clone(),
            };
            let key = match &changes.private_key {
                Some(key) => key.as_ref().map(|k| k.expose().to_owned()),
                None => current.private_key.as_ref().map(|k| k.expose().to_owned()),
            };
            let installation = patch.installation_id.unwrap_or(current.installation_id);
            let errors = app_errors(
                current.platform_type,
                app_id.as_deref(),
                key.as_deref(),
                installation,
            );
            if !errors.is_empty() {
                return Err(ServiceError::Invalid(errors));
            }
            let app_changed = changes.app_id.is_some()
                || changes.private_key.is_some()
                || changes.installation_id.is_some()
                || base_url.is_some()
                || patch.auth_type.is_some();
            if app_changed {
                let key = key.map(SecretString::new);
                let app = app_credentials(app_id.as_deref(), key.as_ref(), installation)
                    .ok_or_else(|| {
                        ServiceError::invalid("appId", "is required when authType is app")
                    })?;
                let url = base_url.clone().unwrap_or_else(|| current.base_url.clone());
                self.verify_app(&url, app).await?;
            }
        }
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
