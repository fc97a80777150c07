//! OAuth2 against a hostA instance: the authorize URL, the callback's code exchange
//! and refreshing the token before it expires.

use super::{PlatformConfigService, not_found, origin_of};
use crate::ErrorCode;
use crate::model::{AuthType, PlatformConfig, PlatformConfigChanges, PlatformType};
use crate::services::ServiceError;
use std::sync::Arc;
use uuid::Uuid;

#[derive(Debug, Clone, Default)]
pub struct OAuthSettings {
    /// Origins (scheme://host[:port]) a redirect URI may point at: the `APP_URLs`.
    pub allowed_redirect_origins: Vec<String>,
}

impl PlatformConfigService {
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
        let (app_id, app_secret) = app_credentials(&config);
        let tokens = oauth
            .exchange_code(&config.base_url, app_id, app_secret, code, redirect_uri)
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
        let (app_id, app_secret) = app_credentials(&config);
        let tokens = oauth
            .refresh(&config.base_url, app_id, app_secret, refresh_token.expose())
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

    pub(super) async fn oauth_config(&self, id: Uuid) -> Result<PlatformConfig, ServiceError> {
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

    pub(super) fn oauth_flow(
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

    pub(super) fn check_redirect(&self, redirect_uri: &str) -> Result<(), ServiceError> {
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
}

/// The OAuth application's id and secret as the token endpoint takes them (empty
/// when unset: the platform then refuses, and says why).
fn app_credentials(config: &PlatformConfig) -> (&str, &str) {
    (
        config.app_id.as_deref().unwrap_or_default(),
        config.app_secret.as_ref().map_or("", |s| s.expose()),
    )
}
