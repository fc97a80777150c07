//! Platform configs: at most one default per platform type; deleting one deletes its
//! projects and hands the default on to the oldest remaining config of its type.

use super::MemoryStore;
use super::Tables;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::{
    NewPlatformConfig, PlatformConfig, PlatformConfigChanges, PlatformType,
};
use reviewd_domain::ports::{PlatformConfigRepository, RepoError};
use uuid::Uuid;

impl Tables {
    fn platform_config_mut(&mut self, id: Uuid) -> Result<&mut PlatformConfig, RepoError> {
        self.platform_configs
            .iter_mut()
            .find(|c| c.id == id)
            .ok_or(RepoError::NotFound)
    }

    /// The row trigger stamps `updated_at` on the config that stops being the default.
    fn clear_default(&mut self, platform_type: PlatformType, now: DateTime<Utc>) {
        for c in &mut self.platform_configs {
            if c.platform_type == platform_type && c.is_default {
                c.is_default = false;
                c.updated_at = now;
            }
        }
    }
}

fn apply(c: &mut PlatformConfig, changes: PlatformConfigChanges) {
    let PlatformConfigChanges {
        name,
        base_url,
        auth_type,
        access_token,
        app_id,
        app_secret,
        webhook_secret,
        refresh_token,
        token_expires_at,
        oauth_state,
        oauth_redirect_uri,
        token_scopes,
        enabled,
        private_key,
        installation_id,
    } = changes;
    set(&mut c.name, name);
    set(&mut c.base_url, base_url);
    set(&mut c.auth_type, auth_type);
    set(&mut c.access_token, access_token);
    set(&mut c.app_id, app_id);
    set(&mut c.app_secret, app_secret);
    set(&mut c.webhook_secret, webhook_secret);
    set(&mut c.refresh_token, refresh_token);
    set(&mut c.token_expires_at, token_expires_at);
    set(&mut c.oauth_state, oauth_state);
    set(&mut c.oauth_redirect_uri, oauth_redirect_uri);
    set(&mut c.token_scopes, token_scopes);
    set(&mut c.private_key, private_key);
    set(&mut c.installation_id, installation_id);
    set(&mut c.enabled, enabled);
}

/// A change's `None` keeps the stored value.
pub(super) fn set<T>(field: &mut T, change: Option<T>) {
    if let Some(value) = change {
        *field = value;
    }
}

#[async_trait]
impl PlatformConfigRepository for MemoryStore {
    async fn list(
        &self,
        platform_type: Option<PlatformType>,
        enabled_only: bool,
    ) -> Result<Vec<PlatformConfig>, RepoError> {
        // Rows are pushed as they are created, so the Vec is in creation order.
        Ok(self
            .tables()
            .platform_configs
            .iter()
            .filter(|c| platform_type.is_none_or(|t| c.platform_type == t))
            .filter(|c| c.enabled || !enabled_only)
            .cloned()
            .collect())
    }

    async fn get(&self, id: Uuid) -> Result<PlatformConfig, RepoError> {
        Ok(self.tables().platform_config_mut(id)?.clone())
    }

    async fn create(&self, c: NewPlatformConfig) -> Result<PlatformConfig, RepoError> {
        let now = self.now();
        let mut tables = self.tables();
        if c.is_default {
            tables.clear_default(c.platform_type, now);
        }
        let config = PlatformConfig {
            id: Uuid::new_v4(),
            name: c.name,
            platform_type: c.platform_type,
            base_url: c.base_url,
            auth_type: c.auth_type,
            access_token: c.access_token,
            app_id: c.app_id,
            app_secret: c.app_secret,
            webhook_secret: c.webhook_secret,
            refresh_token: None,
            token_expires_at: None,
            oauth_state: None,
            oauth_redirect_uri: None,
            token_scopes: c.token_scopes,
            enabled: c.enabled,
            is_default: c.is_default,
            private_key: c.private_key,
            installation_id: c.installation_id,
            created_at: now,
            updated_at: now,
        };
        tables.platform_configs.push(config.clone());
        Ok(config)
    }

    async fn update(
        &self,
        id: Uuid,
        changes: PlatformConfigChanges,
    ) -> Result<PlatformConfig, RepoError> {
        let now = self.now();
        let mut tables = self.tables();
        let config = tables.platform_config_mut(id)?;
        apply(config, changes);
        config.updated_at = now;
        Ok(config.clone())
    }

    async fn set_default(&self, id: Uuid) -> Result<PlatformConfig, RepoError> {
        let now = self.now();
        let mut tables = self.tables();
        let platform_type = tables.platform_config_mut(id)?.platform_type;
        tables.clear_default(platform_type, now);
        let config = tables.platform_config_mut(id)?;
        config.is_default = true;
        config.updated_at = now;
        Ok(config.clone())
    }

    async fn count_projects(&self, id: Uuid) -> Result<u64, RepoError> {
        let tables = self.tables();
        Ok(tables
            .projects
            .iter()
            .filter(|p| p.platform_config_id == id)
            .count() as u64)
    }

    async fn delete_with_projects(&self, id: Uuid) -> Result<u64, RepoError> {
        let now = self.now();
        let mut tables = self.tables();
        let removed = tables.platform_config_mut(id)?.clone();
        let projects: Vec<ProjectId> = tables
            .projects
            .iter()
            .filter(|p| p.platform_config_id == id)
            .map(|p| p.id)
            .collect();
        let deleted = tables.delete_projects(&projects).len() as u64;
        tables.platform_configs.retain(|c| c.id != id);
        if removed.is_default {
            // Keep one default per type while configs of that type remain.
            let successor = tables
                .platform_configs
                .iter_mut()
                .find(|c| c.platform_type == removed.platform_type);
            if let Some(next) = successor {
                next.is_default = true;
                next.updated_at = now;
            }
        }
        Ok(deleted)
    }
}
