//! Which configuration a review uses, and the configurations the health check covers.

use super::{AiConfigService, ServiceError};
use crate::model::{AiTarget, BuiltinAi};
use crate::ports::{AiError, AiProvider, RepoError};
use std::sync::Arc;
use uuid::Uuid;

impl AiConfigService {
    /// The configuration of the `PROVIDERA_*` variables.
    #[must_use]
    pub fn builtin(&self) -> &BuiltinAi {
        &self.builtin
    }

    /// What a review of a project bound to `bound` (its `aiConfigId`) is sent to:
    /// that configuration, else (none, or deleted since) the stored default, else
    /// the built-in one.
    ///
    /// # Errors
    /// Store failures.
    pub async fn target(&self, bound: Option<Uuid>) -> Result<AiTarget, ServiceError> {
        if let Some(id) = bound {
            match self.configs.get(id).await {
                Ok(config) => return Ok(AiTarget::stored(&config)),
                // Deleted between the project's read and this one: as if unbound.
                Err(RepoError::NotFound) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(match self.configs.default_config().await? {
            Some(config) => AiTarget::stored(&config),
            None => self.builtin.target(true),
        })
    }

    /// The provider that sends `target`'s calls.
    ///
    /// # Errors
    /// `Unavailable` when it cannot be built.
    pub fn provider(&self, target: &AiTarget) -> Result<Arc<dyn AiProvider>, AiError> {
        self.providers.provider(target)
    }

    /// What the health check covers: every stored configuration, and the built-in
    /// one when `PROVIDERA_ENDPOINT` is set or no stored configuration is the default
    /// (then reviews use it, and an unset endpoint is worth reporting).
    ///
    /// # Errors
    /// Store failures.
    pub async fn health_targets(&self) -> Result<Vec<AiTarget>, ServiceError> {
        let stored = self.configs.list().await?;
        let has_default = stored.iter().any(|c| c.is_default);
        let mut targets: Vec<AiTarget> = stored.iter().map(AiTarget::stored).collect();
        if self.builtin.endpoint.is_some() || !has_default {
            targets.push(self.builtin.target(!has_default));
        }
        Ok(targets)
    }
}
