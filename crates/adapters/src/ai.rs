//! The AI providers as the engine sees them: the `PROVIDERA_*` one from the
//! environment, with at most `AI_REVIEW_CONCURRENCY` calls in flight across all
//! reviews, and one per stored AI configuration with its own `maxConcurrency` and
//! `timeoutSecs` ([`AiProviderPool`]).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use reviewd_ai_openai::OpenAiProvider;
use reviewd_domain::model::{AiSource, AiTarget};
use reviewd_domain::ports::{AiCompletion, AiError, AiProvider, AiProviders, AiRequest};
use reviewd_http::{HttpClient, RetryPolicy};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::Semaphore;
use uuid::Uuid;

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

/// A provider per AI configuration. The built-in one is made once at start; a stored
/// configuration's is made at its first use and kept while the record is unchanged
/// (same `updated_at`), so its concurrency limit holds across every review that uses
/// it; an edit makes the next review build a new one. A trial is built for the one
/// check it makes, with a single attempt.
pub struct AiProviderPool {
    /// The outbound policy: attempts and backoff of every AI client.
    policy: RetryPolicy,
    builtin: Arc<dyn AiProvider>,
    stored: Mutex<HashMap<Uuid, Kept>>,
}

/// A stored configuration's provider, and the `updated_at` of the record it was
/// built from.
type Kept = (DateTime<Utc>, Arc<dyn AiProvider>);

impl AiProviderPool {
    /// `builtin` serves the `PROVIDERA_*` configuration; `policy` is the outbound one.
    #[must_use]
    pub fn new(builtin: Arc<dyn AiProvider>, policy: RetryPolicy) -> Self {
        Self {
            policy,
            builtin,
            stored: Mutex::new(HashMap::new()),
        }
    }

    fn build(&self, target: &AiTarget, max_attempts: u32) -> Result<OpenAiProvider, AiError> {
        let endpoint = target
            .endpoint
            .as_deref()
            .ok_or_else(|| AiError::Rejected("the AI configuration has no endpoint".into()))?;
        let http = HttpClient::new(RetryPolicy {
            max_attempts,
            timeout: target.timeout.unwrap_or(self.policy.timeout),
            ..self.policy
        })
        .map_err(|e| AiError::Unavailable(e.to_string()))?;
        Ok(OpenAiProvider::new(
            http,
            &target.name,
            endpoint,
            target.api_key.clone(),
        ))
    }
}

impl AiProviders for AiProviderPool {
    fn provider(&self, target: &AiTarget) -> Result<Arc<dyn AiProvider>, AiError> {
        let (id, updated_at) = match target.source {
            AiSource::Builtin => return Ok(self.builtin.clone()),
            AiSource::Trial => return Ok(Arc::new(self.build(target, 1)?)),
            AiSource::Stored { id, updated_at } => (id, updated_at),
        };
        let mut stored = self
            .stored
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match stored.get(&id) {
            Some((at, provider)) if *at == updated_at => return Ok(provider.clone()),
            // A review that read the record before its last edit: served as read,
            // without replacing the newer provider.
            Some((at, _)) if *at > updated_at => {
                let inner = Arc::new(self.build(target, self.policy.max_attempts)?);
                return Ok(Arc::new(LimitedAi::new(inner, target.max_concurrency)));
            }
            _ => {}
        }
        let inner = Arc::new(self.build(target, self.policy.max_attempts)?);
        let provider: Arc<dyn AiProvider> = Arc::new(LimitedAi::new(inner, target.max_concurrency));
        stored.insert(id, (updated_at, provider.clone()));
        Ok(provider)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn stored(updated_at: DateTime<Utc>) -> AiTarget {
        AiTarget {
            source: AiSource::Stored {
                id: Uuid::from_u128(7),
                updated_at,
            },
            name: "b".into(),
            endpoint: Some("http://127.0.0.1:9/v1".into()),
            api_key: None,
            model: "model-b".into(),
            max_concurrency: 2,
            timeout: Some(Duration::from_secs(5)),
            is_default: false,
            prices: reviewd_domain::model::AiPrices::default(),
        }
    }

    fn pool() -> AiProviderPool {
        AiProviderPool::new(Arc::new(UnconfiguredAi), RetryPolicy::fast())
    }

    #[test]
    fn a_stored_configuration_keeps_its_provider_until_it_changes() {
        let pool = pool();
        let t1 = Utc::now();
        let first = pool.provider(&stored(t1)).unwrap();
        assert!(
            Arc::ptr_eq(&first, &pool.provider(&stored(t1)).unwrap()),
            "one provider, so one concurrency limit, per configuration"
        );
        let t2 = t1 + chrono::Duration::seconds(1);
        let edited = pool.provider(&stored(t2)).unwrap();
        assert!(!Arc::ptr_eq(&first, &edited), "an edit builds a new one");
        assert_eq!(edited.name(), "b");
        let stale = pool.provider(&stored(t1)).unwrap();
        assert!(
            Arc::ptr_eq(&edited, &pool.provider(&stored(t2)).unwrap())
                && !Arc::ptr_eq(&stale, &edited),
            "a stale read does not replace the newer provider"
        );
    }

    #[test]
    fn the_builtin_configuration_is_served_by_the_one_made_at_start() {
        let pool = pool();
        let builtin = reviewd_domain::model::BuiltinAi::default().target(true);
        assert!(Arc::ptr_eq(
            &pool.provider(&builtin).unwrap(),
            &pool.provider(&builtin).unwrap()
        ));
        let trial = AiTarget {
            source: AiSource::Trial,
            ..stored(Utc::now())
        };
        assert!(!Arc::ptr_eq(
            &pool.provider(&trial).unwrap(),
            &pool.provider(&trial).unwrap()
        ));
    }
}
