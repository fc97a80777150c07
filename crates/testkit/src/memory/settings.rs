//! Global settings and the AI configurations projects may point at. No port writes
//! either (the migrations seed the settings; admins add AI configs in the database),
//! so domain tests set them through [`MemoryStore::set_global_settings`] and
//! [`MemoryStore::add_ai_config`].

use super::MemoryStore;
use async_trait::async_trait;
use reviewd_domain::model::GlobalSettings;
use reviewd_domain::ports::{RepoError, SettingsRepository};
use uuid::Uuid;

#[derive(Debug)]
pub(crate) struct SettingsTables {
    global: GlobalSettings,
    /// AI configurations: id and whether it is the default.
    ai_configs: Vec<(Uuid, bool)>,
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
            ai_configs: Vec::new(),
        }
    }
}

impl SettingsTables {
    pub(crate) fn ai_config_exists(&self, id: Uuid) -> bool {
        self.ai_configs.iter().any(|&(c, _)| c == id)
    }
}

impl MemoryStore {
    /// Replaces the global settings, as an admin's edit of the row would.
    pub fn set_global_settings(&self, settings: GlobalSettings) {
        self.tables().settings.global = settings;
    }

    /// Adds an AI configuration and returns its id; a new default replaces the old
    /// one (the schema allows one).
    pub fn add_ai_config(&self, is_default: bool) -> Uuid {
        let id = Uuid::new_v4();
        let settings = &mut self.tables().settings;
        if is_default {
            for config in &mut settings.ai_configs {
                config.1 = false;
            }
        }
        settings.ai_configs.push((id, is_default));
        id
    }
}

#[async_trait]
impl SettingsRepository for MemoryStore {
    async fn global(&self) -> Result<GlobalSettings, RepoError> {
        Ok(self.tables().settings.global.clone())
    }

    async fn ai_config_exists(&self, id: Uuid) -> Result<bool, RepoError> {
        Ok(self.tables().settings.ai_config_exists(id))
    }

    async fn default_ai_config_id(&self) -> Result<Option<Uuid>, RepoError> {
        Ok(self
            .tables()
            .settings
            .ai_configs
            .iter()
            .find(|&&(_, is_default)| is_default)
            .map(|&(id, _)| id))
    }
}
