//! Reaching the platform of a stored config.

use super::ServiceError;
use crate::ErrorCode;
use crate::model::{AppCredentials, AuthType, PlatformConfig, PlatformConnection, SecretString};
use crate::ports::{HostingPlatform, PlatformClients};
use std::sync::Arc;

/// A client for the config's platform, through its access token.
///
/// # Errors
/// `BadRequest` when the config is disabled or has no token yet (an OAuth config
/// before its authorization).
pub fn platform_for(
    clients: &dyn PlatformClients,
    config: &PlatformConfig,
) -> Result<Arc<dyn HostingPlatform>, ServiceError> {
    if !config.enabled {
        return Err(ServiceError::BadRequest {
            code: ErrorCode::PlatformConfigDisabled,
            message: format!("platform config `{}` is disabled", config.name),
        });
    }
    Ok(clients.client(&connection_of(config)?))
}

/// How to reach the config's platform: its access token, or a GitHub App's
/// credentials.
///
/// # Errors
/// `BadRequest` for a config without a token yet (an OAuth config before its
/// authorization) or an App config missing its id or key.
pub fn connection_of(config: &PlatformConfig) -> Result<PlatformConnection, ServiceError> {
    if config.auth_type == AuthType::App {
        let app = app_credentials(
            config.app_id.as_deref(),
            config.private_key.as_ref(),
            config.installation_id,
        )
        .ok_or_else(|| ServiceError::BadRequest {
            code: ErrorCode::PlatformNotAuthorized,
            message: format!(
                "platform config `{}` is a GitHub App without its appId or privateKey",
                config.name
            ),
        })?;
        return Ok(PlatformConnection {
            platform_type: config.platform_type,
            base_url: config.base_url.clone(),
            auth_type: config.auth_type,
            token: SecretString::new(""),
            app: Some(app),
        });
    }
    let token = config
        .access_token
        .clone()
        .ok_or_else(|| ServiceError::BadRequest {
            code: ErrorCode::PlatformNotAuthorized,
            message: format!(
                "platform config `{}` has no access token yet; complete its OAuth authorization",
                config.name
            ),
        })?;
    Ok(PlatformConnection {
        platform_type: config.platform_type,
        base_url: config.base_url.clone(),
        auth_type: config.auth_type,
        token,
        app: None,
    })
}

/// A GitHub App's credentials, when its id is a number and its key is there.
#[must_use]
pub fn app_credentials(
    app_id: Option<&str>,
    private_key: Option<&SecretString>,
    installation_id: Option<i64>,
) -> Option<AppCredentials> {
    Some(AppCredentials {
        app_id: app_id?.trim().parse().ok()?,
        private_key: private_key?.clone(),
        installation_id: installation_id.and_then(|id| u64::try_from(id).ok()),
    })
}
