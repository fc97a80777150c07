//! The AI provider as the engine sees it: `PROVIDERA_*` from the environment, with
//! at most `AI_REVIEW_CONCURRENCY` calls in flight across all reviews.

use async_trait::async_trait;
use reviewd_domain::ports::{AiCompletion, AiError, AiProvider, AiRequest};
use std::sync::Arc;
use tokio::sync::Semaphore;

/// Bounds concurrent calls to the wrapped provider.
pub struct LimitedAi {
    inner: Arc<dyn AiProvider>,
    permits: Semaphore,
}

impl LimitedAi {
    #[must_use]
    pub fn new(inner: Arc<dyn AiProvider>, limit: usize) -> Self {
        Self {
            inner,
            permits: Semaphore::new(limit.max(1)),
        }
    }
}

#[async_trait]
impl AiProvider for LimitedAi {
    fn name(&self) -> &str {
        self.inner.name()
    }

    async fn complete(&self, request: &AiRequest) -> Result<AiCompletion, AiError> {
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|e| AiError::Unavailable(e.to_string()))?;
        self.inner.complete(request).await
    }

    async fn check(&self) -> Result<(), AiError> {
        self.inner.check().await
    }
}

/// Stands in when `PROVIDERA_ENDPOINT` is not set: reviews fail with a message that
/// says what to configure, instead of tasks waiting forever.
pub struct UnconfiguredAi;

#[async_trait]
impl AiProvider for UnconfiguredAi {
    fn name(&self) -> &str {
        "providerA"
    }

    async fn complete(&self, _request: &AiRequest) -> Result<AiCompletion, AiError> {
        Err(AiError::Rejected(
            "no AI provider is configured: set PROVIDERA_ENDPOINT and PROVIDERA_API_KEY".into(),
        ))
    }

    async fn check(&self) -> Result<(), AiError> {
        Err(AiError::Rejected(
            "no AI provider is configured: set PROVIDERA_ENDPOINT".into(),
        ))
    }
}
