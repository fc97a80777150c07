//! The row of a platform config, its secrets opened on the way out.

use super::secret::open;
use crate::error::corrupt;
use crate::schema::platform_configs;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use reviewd_crypto::SecretBox;
use reviewd_domain::model::PlatformConfig;
use reviewd_domain::ports::RepoError;
use uuid::Uuid;

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = platform_configs, check_for_backend(diesel::pg::Pg))]
pub(crate) struct PlatformConfigRow {
    pub id: Uuid,
    pub name: String,
    pub platform_type: String,
    pub base_url: String,
    pub auth_type: String,
    pub access_token_enc: Option<String>,
    pub app_id: Option<String>,
    pub app_secret_enc: Option<String>,
    pub webhook_secret_enc: Option<String>,
    pub refresh_token_enc: Option<String>,
    pub token_expires_at: Option<DateTime<Utc>>,
    pub oauth_state: Option<String>,
    pub oauth_redirect_uri: Option<String>,
    pub token_scopes: Vec<String>,
    pub enabled: bool,
    pub is_default: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub private_key_enc: Option<String>,
    pub installation_id: Option<i64>,
}

impl PlatformConfigRow {
    pub(crate) fn into_config(self, secrets: &SecretBox) -> Result<PlatformConfig, RepoError> {
        let what = |field: &str| format!("platform config {} {field}", self.id);
        Ok(PlatformConfig {
            platform_type: self.platform_type.parse().map_err(|e: String| corrupt(e))?,
            auth_type: self.auth_type.parse().map_err(|e: String| corrupt(e))?,
            access_token: open(secrets, self.access_token_enc, &what("access token"))?,
            app_secret: open(secrets, self.app_secret_enc, &what("app secret"))?,
            webhook_secret: open(secrets, self.webhook_secret_enc, &what("webhook secret"))?,
            refresh_token: open(secrets, self.refresh_token_enc, &what("refresh token"))?,
            private_key: open(secrets, self.private_key_enc, &what("private key"))?,
            installation_id: self.installation_id,
            id: self.id,
            name: self.name,
            base_url: self.base_url,
            app_id: self.app_id,
            token_expires_at: self.token_expires_at,
            oauth_state: self.oauth_state,
            oauth_redirect_uri: self.oauth_redirect_uri,
            token_scopes: self.token_scopes,
            enabled: self.enabled,
            is_default: self.is_default,
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}
