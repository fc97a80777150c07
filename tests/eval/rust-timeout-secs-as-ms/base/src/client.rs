//! HTTP client for the upstream pricing service.

use std::time::Duration;

pub struct PricingClient {
    base_url: String,
    timeout: Duration,
    retries: u32,
}

pub struct ClientBuilder {
    base_url: String,
    timeout: Duration,
    retries: u32,
}

impl ClientBuilder {
    pub fn new(base_url: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            timeout: Duration::from_millis(2_500),
            retries: 2,
        }
    }

    /// Per-request timeout.
    pub fn request_timeout(mut self, timeout_ms: u64) -> Self {
        self.timeout = Duration::from_millis(timeout_ms);
        self
    }

    pub fn retries(mut self, retries: u32) -> Self {
        self.retries = retries;
        self
    }

    pub fn build(self) -> PricingClient {
        PricingClient {
            base_url: self.base_url,
            timeout: self.timeout,
            retries: self.retries,
        }
    }
}

impl PricingClient {
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    pub fn url(&self, path: &str) -> String {
        format!(
            "{}/{}",
            self.base_url.trim_end_matches('/'),
            path.trim_start_matches('/')
        )
    }

    pub fn retries(&self) -> u32 {
        self.retries
    }
}
