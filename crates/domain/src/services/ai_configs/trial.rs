//! Trying settings before (or after) they are stored: one cheap call.

use super::{AiConfigService, AiTrial, ServiceError};
use std::time::{Duration, Instant};

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
