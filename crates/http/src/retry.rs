use std::time::Duration;

/// How calls are bounded and retried.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub max_attempts: u32,
    /// Delay before the first retry; doubled for each further one.
    pub base_delay: Duration,
    /// Longest wait between attempts; a `Retry-After` beyond it ends the retries.
    pub max_delay: Duration,
    /// Timeout of each attempt.
    pub timeout: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            timeout: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// Quick settings for tests against local fake servers.
    #[must_use]
    pub fn fast() -> Self {
        Self {
            max_attempts: 3,
            base_delay: Duration::from_millis(10),
            max_delay: Duration::from_secs(2),
            timeout: Duration::from_secs(5),
        }
    }

    /// The wait before retry number `retry` (1-based), honouring a server's hint.
    /// `None` means: do not retry (the hint is longer than we are willing to wait).
    #[must_use]
    pub fn delay(&self, retry: u32, hint: Option<Duration>) -> Option<Duration> {
        match hint {
            Some(h) if h > self.max_delay => None,
            Some(h) => Some(h),
            None => {
                let factor = 2u32.saturating_pow(retry.saturating_sub(1));
                Some(self.base_delay.saturating_mul(factor).min(self.max_delay))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap_and_respects_hints() {
        let p = RetryPolicy {
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(5),
            ..RetryPolicy::default()
        };
        assert_eq!(p.delay(1, None), Some(Duration::from_secs(1)));
        assert_eq!(p.delay(3, None), Some(Duration::from_secs(4)));
        assert_eq!(p.delay(5, None), Some(Duration::from_secs(5)));
        assert_eq!(
            p.delay(1, Some(Duration::from_secs(2))),
            Some(Duration::from_secs(2))
        );
        assert_eq!(p.delay(1, Some(Duration::from_secs(60))), None);
    }
}
