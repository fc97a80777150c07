//! An AI model that answers prompts (`PROVIDERA`: OpenAI-compatible chat completions).

use crate::model::AiTarget;
use async_trait::async_trait;
use std::sync::Arc;
use std::time::Duration;

/// One prompt. `json_schema` asks for structured output that follows the schema.
#[derive(Debug, Clone, PartialEq)]
pub struct AiRequest {
    pub model: String,
    pub system: String,
    /// The part of the prompt every call of a round shares (the MR, its
    /// overview, the team's guidance), sent between `system` and `user` so that
    /// providers that cache a repeated prefix serve it from their cache.
    pub shared: Option<String>,
    pub user: String,
    pub max_tokens: Option<u32>,
    pub temperature: Option<f64>,
    /// Name and JSON Schema (as a JSON value) of the expected answer.
    pub json_schema: Option<(String, serde_json::Value)>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenUsage {
    pub prompt: u32,
    pub completion: u32,
    pub total: u32,
    /// Prompt tokens the provider served from its cache (OpenAI's
    /// `usage.prompt_tokens_details.cached_tokens`), 0 when it does not say.
    pub cached: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AiCompletion {
    pub content: String,
    /// The model that answered (providers may resolve aliases).
    pub model: String,
    pub usage: TokenUsage,
    pub duration: Duration,
}

/// Failures after the adapter's bounded retries. Callers time each call themselves,
/// so failed calls are logged with their duration too.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AiError {
    #[error("the AI provider rejected the API key")]
    Unauthorized,
    #[error("the AI provider is rate limiting")]
    RateLimited { retry_after: Option<Duration> },
    #[error("the prompt does not fit the model's context: {0}")]
    ContextTooLong(String),
    #[error("the AI provider is unavailable: {0}")]
    Unavailable(String),
    #[error("the AI provider answered with something unusable: {0}")]
    InvalidResponse(String),
    #[error("the request was refused: {0}")]
    Rejected(String),
    /// The configuration names a model the provider does not serve (withdrawn,
    /// misspelt, or not granted to this key): worth another model, not a retry.
    #[error("the AI provider has no such model: {0}")]
    ModelNotFound(String),
}

#[async_trait]
pub trait AiProvider: Send + Sync {
    /// The provider's name for logs and AI call records (e.g. `providerA`).
    fn name(&self) -> &str;

    /// One completion.
    ///
    /// # Errors
    /// `Unauthorized` for a bad key, `RateLimited`/`Unavailable` after retries,
    /// `ContextTooLong` when the prompt is too large, `InvalidResponse` for an answer
    /// without usable content.
    async fn complete(&self, request: &AiRequest) -> Result<AiCompletion, AiError>;

    /// A cheap reachability and key check (the models list), for health checks.
    ///
    /// # Errors
    /// As [`AiProvider::complete`].
    async fn check(&self) -> Result<(), AiError>;
}

/// Makes the provider for an AI configuration: the server keeps one per stored
/// configuration (its concurrency limit shared by every review using it) and builds
/// it again when the record changes.
pub trait AiProviders: Send + Sync {
    /// The provider that sends `target`'s calls.
    ///
    /// # Errors
    /// `Unavailable` when the adapter cannot be built (its HTTP client, say).
    fn provider(&self, target: &AiTarget) -> Result<Arc<dyn AiProvider>, AiError>;
}
