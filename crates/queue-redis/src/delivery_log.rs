use crate::RedisPool;
use async_trait::async_trait;
use deadpool_redis::redis;
use reviewd_domain::ports::{DeliveryLog, QueueError};
use std::time::Duration;

/// Webhook delivery ids in Redis (`SET NX` with a TTL): platforms redeliver within
/// hours, so a week of memory is ample and the keys expire by themselves.
pub struct RedisDeliveryLog {
    pool: RedisPool,
    prefix: String,
    ttl: Duration,
}

impl RedisDeliveryLog {
    #[must_use]
    pub fn new(pool: RedisPool, prefix: &str) -> Self {
        Self {
            pool,
            prefix: format!("{prefix}webhook-delivery:"),
            ttl: Duration::from_secs(7 * 24 * 3600),
        }
    }
}

#[async_trait]
impl DeliveryLog for RedisDeliveryLog {
    async fn first_seen(&self, platform: &str, delivery_id: &str) -> Result<bool, QueueError> {
        let mut conn = self
            .pool
            .get()
            .await
            .map_err(|e| QueueError::Unavailable(e.to_string()))?;
        let set: Option<String> = redis::cmd("SET")
            .arg(format!("{}{platform}:{delivery_id}", self.prefix))
            .arg("1")
            .arg("NX")
            .arg("EX")
            .arg(self.ttl.as_secs())
            .query_async(&mut conn)
            .await
            .map_err(|e| QueueError::Unavailable(e.to_string()))?;
        Ok(set.is_some())
    }

    async fn forget(&self, platform: &str, delivery_id: &str) -> Result<(), QueueError> {
        let mut conn = self
            .pool
            .get()
            .await
            .map_err(|e| QueueError::Unavailable(e.to_string()))?;
        let _: () = redis::cmd("DEL")
            .arg(format!("{}{platform}:{delivery_id}", self.prefix))
            .query_async(&mut conn)
            .await
            .map_err(|e| QueueError::Unavailable(e.to_string()))?;
        Ok(())
    }
}
