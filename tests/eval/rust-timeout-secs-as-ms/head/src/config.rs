//! Settings read from the environment at startup.

use std::env;

#[derive(Debug, Clone)]
pub struct Config {
    pub listen_addr: String,
    pub pricing_url: String,
    /// How long to wait for the pricing service, in seconds.
    pub upstream_timeout_secs: u64,
    pub upstream_retries: u32,
}

impl Config {
    pub fn from_env() -> anyhow::Result<Self> {
        Ok(Self {
            listen_addr: env::var("LISTEN_ADDR").unwrap_or_else(|_| "0.0.0.0:8080".into()),
            pricing_url: env::var("PRICING_URL")?,
            upstream_timeout_secs: env::var("UPSTREAM_TIMEOUT_SECS")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(5),
            upstream_retries: env::var("UPSTREAM_RETRIES")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(2),
        })
    }
}
