//! The models a review's calls may go to: the configuration's own, then its
//! fallbacks (stored configurations, in the order the configuration lists them).

use super::super::{FieldError, ServiceError};
use super::AiConfigService;
use crate::model::AiTarget;
use crate::model::ai_config::MAX_FALLBACKS;
use crate::ports::{AiError, RepoError};
use crate::review::model_chain::{ChainLink, ModelChain};
use std::collections::HashSet;
use uuid::Uuid;

impl AiConfigService {
    /// `target`'s model, then its fallbacks'. A fallback that was deleted, cannot be
    /// read or cannot be built is left out (logged): the configuration's own model
    /// still answers. The fallbacks' own fallbacks are not followed.
    ///
    /// # Errors
    /// `target`'s provider cannot be built.
    pub async fn chain(&self, target: &AiTarget) -> Result<ModelChain, AiError> {
        let primary = self.link(target)?;
        let Some(id) = target.config_id() else {
            return Ok(ModelChain::single(primary));
        };
        let fallback_ids = match self.configs.get(id).await {
            Ok(config) => config.fallback_ids,
            Err(e) => {
                tracing::warn!(ai_config.id = %id, error = %e, "ai_config.fallbacks_unread");
                Vec::new()
            }
        };
        let mut fallbacks = Vec::with_capacity(fallback_ids.len());
        for fallback in fallback_ids {
            let link = match self.configs.get(fallback).await {
                Ok(config) => self
                    .link(&AiTarget::stored(&config))
                    .map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            };
            match link {
                Ok(link) => fallbacks.push(link),
                Err(e) => {
                    tracing::warn!(ai_config.id = %id, fallback = %fallback, error = %e, "ai_config.fallback_skipped");
                }
            }
        }
        Ok(ModelChain::with_fallbacks(primary, fallbacks))
    }

    /// A list of fallbacks `config` (`None` while being created) may store: at
    /// most three stored configurations, each once, not itself.
    ///
    /// # Errors
    /// `Invalid` on `fallbackIds` (too many, itself, twice); `NotFound` for an id
    /// of no configuration; store failures.
    pub(super) async fn check_fallbacks(
        &self,
        config: Option<Uuid>,
        ids: &[Uuid],
    ) -> Result<(), ServiceError> {
        let invalid = |message: String| {
            Err(ServiceError::Invalid(vec![FieldError::new(
                "fallbackIds",
                message,
            )]))
        };
        if ids.len() > MAX_FALLBACKS {
            return invalid(format!(
                "lists {} configurations; at most {MAX_FALLBACKS}",
                ids.len()
            ));
        }
        let mut seen = HashSet::new();
        for &id in ids {
            if Some(id) == config {
                return invalid("names this configuration: it cannot fall back on itself".into());
            }
            if !seen.insert(id) {
                return invalid(format!("names {id} twice"));
            }
            match self.configs.get(id).await {
                Ok(_) => {}
                // As a project's `aiConfigId` naming none: a 404 for the one named.
                Err(RepoError::NotFound) => return Err(ServiceError::NotFound("AI configuration")),
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    fn link(&self, target: &AiTarget) -> Result<ChainLink, AiError> {
        Ok(ChainLink {
            provider: self.providers.provider(target)?,
            name: target.name.clone(),
            model: target.model.clone(),
            prices: target.prices,
        })
    }
}
