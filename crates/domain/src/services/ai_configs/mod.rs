//! AI configurations: the stored OpenAI-compatible endpoints an admin manages, which
//! one is the default, and which one a review uses ([`AiConfigService::target`]:
//! the project's own, else the default, else the `PROVIDERA_*` built-in one).
//! Trying settings and the health check's list are in `targets`.

mod chain;
mod input;
mod targets;
mod trial;

pub use input::AiTrial;
pub use input::{AiConfigInput, AiConfigPatch};
pub use trial::AiTestReport;

use super::ServiceError;
use crate::ErrorCode;
use crate::model::{AiConfig, BuiltinAi};
use crate::ports::{AiConfigRepository, AiProviders, RepoError};
use std::sync::Arc;
use uuid::Uuid;

/// How many project paths a refused delete names before "and N more".
const NAMED_PROJECTS: usize = 20;

pub struct AiConfigService {
    configs: Arc<dyn AiConfigRepository>,
    providers: Arc<dyn AiProviders>,
    builtin: BuiltinAi,
}

fn not_found(e: RepoError) -> ServiceError {
    ServiceError::from_repo(e, "AI configuration")
}

/// "group/a, group/b and 3 more".
fn named(paths: &[String]) -> String {
    let shown = paths
        .iter()
        .take(NAMED_PROJECTS)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    match paths.len().saturating_sub(NAMED_PROJECTS) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

impl AiConfigService {
    /// `builtin` is the configuration of the `PROVIDERA_*` variables.
    pub fn new(
        configs: Arc<dyn AiConfigRepository>,
        providers: Arc<dyn AiProviders>,
        builtin: BuiltinAi,
    ) -> Self {
        Self {
            configs,
            providers,
            builtin,
        }
    }

    /// # Errors
    /// Store failures.
    pub async fn list(&self) -> Result<Vec<AiConfig>, ServiceError> {
        Ok(self.configs.list().await?)
    }

    /// # Errors
    /// `NotFound` for an unknown id.
    pub async fn get(&self, id: Uuid) -> Result<AiConfig, ServiceError> {
        self.configs.get(id).await.map_err(not_found)
    }

    /// Validates and stores a configuration; with `isDefault: true` it becomes the
    /// default in place of the previous one.
    ///
    /// # Errors
    /// `Invalid` naming each bad field.
    pub async fn create(&self, input: AiConfigInput) -> Result<AiConfig, ServiceError> {
        let new = input.validate()?;
        self.check_fallbacks(None, &new.fallback_ids).await?;
        let config = self.configs.create(new).await?;
        tracing::info!(ai_config.id = %config.id, default = config.is_default, "ai_config.created");
        Ok(config)
    }

    /// # Errors
    /// `NotFound`; `Invalid` naming each bad field.
    pub async fn update(&self, id: Uuid, patch: AiConfigPatch) -> Result<AiConfig, ServiceError> {
        let is_default = patch.is_default;
        let mut changes = patch.validate()?;
        let current = self.get(id).await?;
        // The stored key goes only to the endpoint it was entered for: whoever may
        // edit a configuration (maintainers, who never read the key) must not
        // collect it by pointing the configuration at a server of their own.
        let moved = changes
            .endpoint
            .as_deref()
            .is_some_and(|e| e != current.endpoint);
        if moved && changes.api_key.is_none() && current.api_key.is_some() {
            changes.api_key = Some(None);
            tracing::info!(ai_config.id = %id, "ai_config.key_dropped_on_move");
        }
        if let Some(ids) = &changes.fallback_ids {
            self.check_fallbacks(Some(id), ids).await?;
        }
        let mut config = self.configs.update(id, changes).await.map_err(not_found)?;
        config = match is_default {
            Some(true) if !config.is_default => {
                self.configs.set_default(id).await.map_err(not_found)?
            }
            Some(false) if config.is_default => {
                self.configs.clear_default(id).await.map_err(not_found)?
            }
            _ => config,
        };
        tracing::info!(ai_config.id = %id, default = config.is_default, "ai_config.updated");
        Ok(config)
    }

    /// Makes the configuration the default of every project without its own.
    ///
    /// # Errors
    /// `NotFound` for an unknown id.
    pub async fn set_default(&self, id: Uuid) -> Result<AiConfig, ServiceError> {
        let config = self.configs.set_default(id).await.map_err(not_found)?;
        tracing::info!(ai_config.id = %id, "ai_config.default_set");
        Ok(config)
    }

    /// Deletes a configuration no project is bound to. Deleting the default leaves
    /// no stored default: the `PROVIDERA_*` configuration applies again.
    ///
    /// # Errors
    /// `NotFound`; `BadRequest` (`PROJECTS_LINKED`) naming the projects bound to it.
    pub async fn delete(&self, id: Uuid) -> Result<(), ServiceError> {
        self.get(id).await?;
        let using = self.configs.projects_using(id).await?;
        if !using.is_empty() {
            let paths: Vec<String> = using.into_iter().map(|(_, path)| path).collect();
            return Err(ServiceError::BadRequest {
                code: ErrorCode::ProjectsLinked,
                message: format!(
                    "{} project(s) use this AI configuration: {}; point them at another one \
                     (aiConfigId) first",
                    paths.len(),
                    named(&paths)
                ),
            });
        }
        self.configs.delete(id).await.map_err(not_found)?;
        tracing::info!(ai_config.id = %id, "ai_config.deleted");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::named;

    #[test]
    fn a_long_list_of_projects_is_cut_after_twenty() {
        let paths: Vec<String> = (1..=23).map(|i| format!("g/p{i}")).collect();
        let text = named(&paths);
        assert!(text.starts_with("g/p1, g/p2,"));
        assert!(text.ends_with("g/p20 and 3 more"), "{text}");
        assert_eq!(named(&paths[..2]), "g/p1, g/p2");
    }
}
