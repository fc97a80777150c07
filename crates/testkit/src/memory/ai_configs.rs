//! AI configurations: at most one default (a new or elected default replaces the
//! old one); deleting a configuration unbinds its projects, as the foreign key's
//! `ON DELETE SET NULL` does, hands the default to no one, and leaves the
//! fallback lists of others (`ON DELETE CASCADE` of `ai_config_fallbacks`).

use super::MemoryStore;
use super::Tables;
use super::platform_configs::set;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::{AiConfig, AiConfigChanges, NewAiConfig};
use reviewd_domain::ports::{AiConfigRepository, RepoError};
use uuid::Uuid;

impl Tables {
    fn ai_config_mut(&mut self, id: Uuid) -> Result<&mut AiConfig, RepoError> {
        self.ai_configs
            .iter_mut()
            .find(|c| c.id == id)
            .ok_or(RepoError::NotFound)
    }

    /// The row trigger stamps `updated_at` on the config that stops being the default.
    fn clear_ai_default(&mut self, now: DateTime<Utc>) {
        for c in self.ai_configs.iter_mut().filter(|c| c.is_default) {
            c.is_default = false;
            c.updated_at = now;
        }
    }
}

fn apply(c: &mut AiConfig, changes: AiConfigChanges) {
    let AiConfigChanges {
        name,
        provider,
        endpoint,
        api_key,
        model,
        max_concurrency,
        timeout_secs,
        input_price_per_mtok,
        output_price_per_mtok,
        fallback_ids,
    } = changes;
    set(&mut c.name, name);
    set(&mut c.provider, provider);
    set(&mut c.endpoint, endpoint);
    set(&mut c.api_key, api_key);
    set(&mut c.model, model);
    set(&mut c.max_concurrency, max_concurrency);
    set(&mut c.timeout_secs, timeout_secs);
    set(&mut c.input_price_per_mtok, input_price_per_mtok);
    set(&mut c.output_price_per_mtok, output_price_per_mtok);
    set(&mut c.fallback_ids, fallback_ids);
}

#[async_trait]
impl AiConfigRepository for MemoryStore {
    async fn list(&self) -> Result<Vec<AiConfig>, RepoError> {
        // Rows are pushed as they are created, so the Vec is in creation order.
        Ok(self.tables().ai_configs.clone())
    }

    async fn get(&self, id: Uuid) -> Result<AiConfig, RepoError> {
        Ok(self.tables().ai_config_mut(id)?.clone())
    }

    async fn create(&self, c: NewAiConfig) -> Result<AiConfig, RepoError> {
        let now = self.now();
        let mut tables = self.tables();
        if c.is_default {
            tables.clear_ai_default(now);
        }
        let config = AiConfig {
            id: Uuid::new_v4(),
            name: c.name,
            provider: c.provider,
            endpoint: c.endpoint,
            api_key: c.api_key,
            model: c.model,
            max_concurrency: c.max_concurrency,
            timeout_secs: c.timeout_secs,
            input_price_per_mtok: c.input_price_per_mtok,
            output_price_per_mtok: c.output_price_per_mtok,
            is_default: c.is_default,
            fallback_ids: c.fallback_ids,
            created_at: now,
            updated_at: now,
        };
        tables.ai_configs.push(config.clone());
        Ok(config)
    }

    async fn update(&self, id: Uuid, changes: AiConfigChanges) -> Result<AiConfig, RepoError> {
        let now = self.now();
        let mut tables = self.tables();
        let config = tables.ai_config_mut(id)?;
        apply(config, changes);
        config.updated_at = now;
        Ok(config.clone())
    }

    async fn set_default(&self, id: Uuid) -> Result<AiConfig, RepoError> {
        let now = self.now();
        let mut tables = self.tables();
        if !tables.ai_config_mut(id)?.is_default {
            tables.clear_ai_default(now);
            let config = tables.ai_config_mut(id)?;
            config.is_default = true;
            config.updated_at = now;
        }
        Ok(tables.ai_config_mut(id)?.clone())
    }

    async fn clear_default(&self, id: Uuid) -> Result<AiConfig, RepoError> {
        let now = self.now();
        let mut tables = self.tables();
        let config = tables.ai_config_mut(id)?;
        if config.is_default {
            config.is_default = false;
            config.updated_at = now;
        }
        Ok(config.clone())
    }

    async fn default_config(&self) -> Result<Option<AiConfig>, RepoError> {
        Ok(self
            .tables()
            .ai_configs
            .iter()
            .find(|c| c.is_default)
            .cloned())
    }

    async fn projects_using(&self, id: Uuid) -> Result<Vec<(ProjectId, String)>, RepoError> {
        let mut using: Vec<(ProjectId, String)> = self
            .tables()
            .projects
            .iter()
            .filter(|p| p.ai_config_id == Some(id))
            .map(|p| (p.id, p.full_path.clone()))
            .collect();
        using.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0)));
        Ok(using)
    }

    async fn delete(&self, id: Uuid) -> Result<(), RepoError> {
        let now = self.now();
        let mut tables = self.tables();
        tables.ai_config_mut(id)?;
        tables.ai_configs.retain(|c| c.id != id);
        for config in &mut tables.ai_configs {
            config.fallback_ids.retain(|f| *f != id);
        }
        for project in tables
            .projects
            .iter_mut()
            .filter(|p| p.ai_config_id == Some(id))
        {
            project.ai_config_id = None;
            project.updated_at = now;
        }
        Ok(())
    }
}
