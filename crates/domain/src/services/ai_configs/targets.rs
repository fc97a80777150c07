//! Which configuration a review uses, the configurations the health check covers,
//! and trying settings before they are stored.

use super::{AiConfigService, AiTrial, ServiceError};
use crate::model::{AiTarget, BuiltinAi};
use crate::ports::{AiError, AiProvider, RepoError};
use std::sync::Arc;
use std::time::{Duration, Instant};
use uuid::Uuid;

/// How long `POST /api/ai-configs/test` waits for the models list: the person
/// trying settings gets an answer, not a wait of the configuration's `timeoutSecs`.
const TEST_TIMEOUT: Duration = Duration::from_secs(10);

/// The outcome of trying settings: a failure is reported here, not as an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AiTestReport {
    pub success: bool,
    pub message: String,
    /// The model the settings name (`None` when they name none).
    pub model: Option<String>,
    pub response_time: Duration,
}

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

    /// Tries settings with one cheap call (the models list) and stores nothing.
    /// Without `id` and `endpoint`, the configuration reviews use by default.
    ///
    /// # Errors
    /// `NotFound` for an unknown `id`; `Invalid` naming each bad field. What the
    /// provider answers is in the report.
    pub async fn test(&self, mut trial: AiTrial) -> Result<AiTestReport, ServiceError> {
        if trial.id.is_none() && trial.endpoint.is_none() {
            // Neither a stored configuration nor an endpoint: the one reviews use by
            // default, its key going only to its own endpoint.
            let default = self.target(None).await?;
            let Some(endpoint) = default.endpoint.filter(|e| !e.is_empty()) else {
                return Ok(AiTestReport {
                    success: false,
                    message: "nothing to try: no configuration is the default and \
                              PROVIDERA_ENDPOINT is not set; give an endpoint or an id"
                        .to_owned(),
                    model: trial.model,
                    response_time: Duration::ZERO,
                });
            };
            trial.endpoint = Some(endpoint);
            if trial.api_key.is_none() {
                trial.api_key = default.api_key.map(|k| k.expose().to_owned());
            }
            trial.model = trial
                .model
                .or_else(|| Some(default.model).filter(|m| !m.is_empty()));
        }
        let stored = match trial.id {
            Some(id) => Some(self.get(id).await?),
            None => None,
        };
        let target = trial.target(stored.as_ref())?.probe(TEST_TIMEOUT);
        let model = Some(target.model.clone()).filter(|m| !m.is_empty());
        let started = Instant::now();
        let outcome = match self.providers.provider(&target) {
            Ok(provider) => provider.check().await,
            Err(e) => Err(e),
        };
        let response_time = started.elapsed();
        let (success, message) = match outcome {
            Ok(()) => (true, "reachable, key accepted".to_owned()),
            Err(e) => (false, e.to_string()),
        };
        tracing::info!(
            success,
            duration_ms = response_time.as_millis(),
            "ai_config.tested"
        );
        Ok(AiTestReport {
            success,
            message,
            model,
            response_time,
        })
    }
}
