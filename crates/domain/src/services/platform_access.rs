//! Reaching the platform of a stored config.

use super::ServiceError;
use crate::ErrorCode;
use crate::model::{PlatformConfig, PlatformConnection};
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
    Ok(clients.client(&PlatformConnection {
        platform_type: config.platform_type,
        base_url: config.base_url.clone(),
        auth_type: config.auth_type,
        token,
    }))
}
