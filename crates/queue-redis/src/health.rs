use crate::RedisPool;
use async_trait::async_trait;
use reviewd_domain::ports::{HealthProbe, ProbeError};
use std::time::Duration;

/// Reports the queue store's reachability and round-trip time.
pub struct RedisHealthProbe {
    pool: RedisPool,
}

impl RedisHealthProbe {
    #[must_use]
    pub fn new(pool: RedisPool) -> Self {
        Self { pool }
    }
}

#[async_trait]
impl HealthProbe for RedisHealthProbe {
    fn name(&self) -> &'static str {
        "queue"
    }

    async fn ping(&self) -> Result<Duration, ProbeError> {
        crate::ping(&self.pool).await.map_err(ProbeError)
    }
}
