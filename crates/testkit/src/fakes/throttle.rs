use async_trait::async_trait;
use reviewd_domain::ports::{LoginThrottle, ThrottleError};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

/// Failure counters without expiry: a key is throttled once it has `max_failures`.
pub struct InMemoryThrottle {
    max_failures: u32,
    counts: Mutex<HashMap<String, u32>>,
}

impl InMemoryThrottle {
    #[must_use]
    pub fn new(max_failures: u32) -> Self {
        Self {
            max_failures,
            counts: Mutex::default(),
        }
    }

    /// Failures counted for `key`.
    #[must_use]
    pub fn failures(&self, key: &str) -> u32 {
        self.counts.lock().unwrap().get(key).copied().unwrap_or(0)
    }
}

#[async_trait]
impl LoginThrottle for InMemoryThrottle {
    async fn check(&self, key: &str) -> Result<(), ThrottleError> {
        if self.failures(key) >= self.max_failures {
            return Err(ThrottleError::Throttled {
                retry_after: Duration::from_secs(60),
            });
        }
        Ok(())
    }

    async fn record_failure(&self, key: &str) -> Result<(), ThrottleError> {
        *self
            .counts
            .lock()
            .unwrap()
            .entry(key.to_owned())
            .or_default() += 1;
        Ok(())
    }

    async fn reset(&self, key: &str) -> Result<(), ThrottleError> {
        self.counts.lock().unwrap().remove(key);
        Ok(())
    }
}
