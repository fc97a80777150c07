//! Global settings, and the lookups of the AI configurations projects may point at
//! (the configurations themselves are kept by `ai_configs.rs`). No port writes the settings
//! (the migrations seed them), so domain tests set them through
//! [`MemoryStore::set_global_settings`].

use super::MemoryStore;
use async_trait::async_trait;
use reviewd_domain::model::GlobalSettings;
use reviewd_domain::ports::{RepoError, SettingsRepository};
use uuid::Uuid;

#[derive(Debug)]
pub(crate) struct SettingsTables {
    global: GlobalSettings,
}

/// What the migrations seed in a fresh database (`global_settings`' defaults).
impl Default for SettingsTables {
    fn default() -> Self {
        let strings = |items: &[&str]| items.iter().map(|&s| s.to_owned()).collect();
        Self {
            global: GlobalSettings {
                auto_review: true,
                send_to_platform: true,
                file_ignore_patterns: strings(&[
                    "*.lock",
                    "package-lock.json",
                    "pnpm-lock.yaml",
                    "*.min.js",
                    "*.min.css",
                    "*.map",
                ]),
                review_commands: strings(&["/review"]),
            },
        }
    }
}

impl MemoryStore {
    /// Replaces the global settings, as an admin's edit of the row would.
    pub fn set_global_settings(&self, settings: GlobalSettings) {
        self.tables().settings.global = settings;
    }
}

#[async_trait]
impl SettingsRepository for MemoryStore {
    async fn global(&self) -> Result<GlobalSettings, RepoError> {
        Ok(self.tables().settings.global.clone())
    }

    async fn ai_config_exists(&self, id: Uuid) -> Result<bool, RepoError> {
        Ok(self.tables().ai_configs.iter().any(|c| c.id == id))
    }

    async fn default_ai_config_id(&self) -> Result<Option<Uuid>, RepoError> {
        Ok(self
            .tables()
            .ai_configs
            .iter()
            .find(|c| c.is_default)
            .map(|c| c.id))
    }
}
