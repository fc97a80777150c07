use async_trait::async_trait;
use chrono::{DateTime, Utc};
use reviewd_domain::ports::{Clock, LoginThrottle, ThrottleError};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Failures counted per key in fixed windows on a clock, as `RedisLoginThrottle`'s
/// `INCR` + `EXPIRE NX`: a window starts at a key's first failure.
pub struct InMemoryThrottle {
    window: Duration,
    clock: Arc<dyn Clock>,
    /// Failures and when their window ends.
    counts: Mutex<HashMap<String, (u32, DateTime<Utc>)>>,
}

impl InMemoryThrottle {
    /// The server's window on `clock`.
    #[must_use]
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self::with_window(reviewd_domain::services::login_guard::LOGIN_WINDOW, clock)
    }

    #[must_use]
    pub fn with_window(window: Duration, clock: Arc<dyn Clock>) -> Self {
        Self {
            window,
            clock,
            counts: Mutex::default(),
        }
    }

    /// Failures counted for `key` in its current window.
    #[must_use]
    pub fn failures(&self, key: &str) -> u32 {
        self.current(key).map_or(0, |(n, _)| n)
    }

    /// The key's failures and the end of their window, unless it has ended.
    fn current(&self, key: &str) -> Option<(u32, DateTime<Utc>)> {
        let now = self.clock.now();
        let counts = self.counts.lock().unwrap();
        counts.get(key).copied().filter(|&(_, ends)| ends > now)
    }
}

#[async_trait]
impl LoginThrottle for InMemoryThrottle {
    async fn check(&self, key: &str, max_failures: u32) -> Result<u32, ThrottleError> {
        match self.current(key) {
            Some((failures, ends)) if failures >= max_failures => {
                let left = (ends - self.clock.now()).to_std().unwrap_or_default();
                Err(ThrottleError::Throttled {
                    retry_after: left.max(Duration::from_secs(1)),
                })
            }
            Some((failures, _)) => Ok(failures),
            None => Ok(0),
        }
    }

    async fn record_failure(&self, key: &str) -> Result<(), ThrottleError> {
        let now = self.clock.now();
        let mut counts = self.counts.lock().unwrap();
        let (failures, ends) = counts.entry(key.to_owned()).or_insert((0, now));
        if *ends <= now {
            (*failures, *ends) = (0, now + chrono::Duration::from_std(self.window).unwrap());
        }
        *failures += 1;
        Ok(())
    }

    async fn reset(&self, key: &str) -> Result<(), ThrottleError> {
        self.counts.lock().unwrap().remove(key);
        Ok(())
    }
}
