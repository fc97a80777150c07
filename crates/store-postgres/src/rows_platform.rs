//! Rows of platform configs and projects, and their conversion.

use crate::error::corrupt;
use crate::schema::{platform_configs, projects};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use reviewd_crypto::SecretBox;
use reviewd_domain::model::{PlatformConfig, Project, SecretString};
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
}

/// Decrypts a stored secret; a value that does not open (another key, tampering) is
/// an error rather than a silently missing secret.
pub(crate) fn open(
    secrets: &SecretBox,
    sealed: Option<String>,
    what: &str,
) -> Result<Option<SecretString>, RepoError> {
    sealed
        .map(|s| {
            secrets
                .open(&s)
                .map(SecretString::new)
                .map_err(|e| corrupt(format!("{what}: {e}")))
        })
        .transpose()
}

pub(crate) fn seal(secrets: &SecretBox, secret: Option<&SecretString>) -> Option<String> {
    secret.map(|s| secrets.seal(s.expose()))
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

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = projects, check_for_backend(diesel::pg::Pg))]
pub(crate) struct ProjectRow {
    pub id: Uuid,
    pub platform_config_id: Uuid,
    pub platform_type: String,
    pub platform_project_id: String,
    pub name: String,
    pub full_path: String,
    pub web_url: String,
    pub default_branch: Option<String>,
    pub visibility: Option<String>,
    pub enabled: bool,
    pub auto_review: Option<bool>,
    pub file_ignore_patterns: Option<Vec<String>>,
    pub ai_config_id: Option<Uuid>,
    pub send_to_platform: Option<bool>,
    pub default_reviewer_ids: Vec<String>,
    pub auto_assign_author: bool,
    pub template_id: Option<Uuid>,
    pub webhook_id: Option<String>,
    pub webhook_url: Option<String>,
    pub webhook_status: Option<String>,
    pub webhook_checked_at: Option<DateTime<Utc>>,
    pub last_synced_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl TryFrom<ProjectRow> for Project {
    type Error = RepoError;

    fn try_from(r: ProjectRow) -> Result<Self, RepoError> {
        Ok(Project {
            platform_type: r.platform_type.parse().map_err(|e: String| corrupt(e))?,
            webhook_status: r
                .webhook_status
                .map(|s| s.parse())
                .transpose()
                .map_err(|e: String| corrupt(e))?,
            id: r.id,
            platform_config_id: r.platform_config_id,
            platform_project_id: r.platform_project_id,
            name: r.name,
            full_path: r.full_path,
            web_url: r.web_url,
            default_branch: r.default_branch,
            visibility: r.visibility,
            enabled: r.enabled,
            auto_review: r.auto_review,
            file_ignore_patterns: r.file_ignore_patterns,
            ai_config_id: r.ai_config_id,
            send_to_platform: r.send_to_platform,
            default_reviewer_ids: r.default_reviewer_ids,
            auto_assign_author: r.auto_assign_author,
            template_id: r.template_id,
            webhook_id: r.webhook_id,
            webhook_url: r.webhook_url,
            webhook_checked_at: r.webhook_checked_at,
            last_synced_at: r.last_synced_at,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}
