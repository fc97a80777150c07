use crate::RedisPool;
use async_trait::async_trait;
use deadpool_redis::redis::{self, AsyncCommands};
use reviewd_domain::ports::{LoginThrottle, ThrottleError};
use std::time::Duration;

/// Fixed-window failure counters in Redis (`INCR` + `EXPIRE`), shared by every replica.
pub struct RedisLoginThrottle {
    pool: RedisPool,
    prefix: String,
    window: Duration,
}

impl RedisLoginThrottle {
    /// `prefix` namespaces the keys, e.g. `reviewd:`; a key's failures are kept
    /// for `window` from its first.
    #[must_use]
    pub fn new(pool: RedisPool, prefix: &str, window: Duration) -> Self {
        Self {
            pool,
            prefix: format!("{prefix}login-failures:"),
            window,
        }
    }

    async fn conn(&self) -> Result<deadpool_redis::Connection, ThrottleError> {
        self.pool
            .get()
            .await
            .map_err(|e| ThrottleError::Unavailable(e.to_string()))
    }
}

fn unavailable(err: redis::RedisError) -> ThrottleError {
    ThrottleError::Unavailable(err.to_string())
}

#[async_trait]
impl LoginThrottle for RedisLoginThrottle {
    async fn check(&self, key: &str, max_failures: u32) -> Result<u32, ThrottleError> {
        let mut conn = self.conn().await?;
        let key = format!("{}{key}", self.prefix);
        let failures: Option<u32> = conn.get(&key).await.map_err(unavailable)?;
        let failures = failures.unwrap_or(0);
        if failures < max_failures {
            return Ok(failures);
        }
        let ttl: i64 = conn.ttl(&key).await.map_err(unavailable)?;
        let retry_after = Duration::from_secs(u64::try_from(ttl).unwrap_or(1).max(1));
        Err(ThrottleError::Throttled { retry_after })
    }

    async fn record_failure(&self, key: &str) -> Result<(), ThrottleError> {
        let mut conn = self.conn().await?;
        let key = format!("{}{key}", self.prefix);
        let window = i64::try_from(self.window.as_secs()).unwrap_or(i64::MAX);
        // EXPIRE NX starts the window at the first failure and leaves it alone after.
        let _: () = redis::pipe()
            .atomic()
            .incr(&key, 1)
            .ignore()
            .cmd("EXPIRE")
            .arg(&key)
            .arg(window)
            .arg("NX")
            .ignore()
            .query_async(&mut conn)
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn reset(&self, key: &str) -> Result<(), ThrottleError> {
        let mut conn = self.conn().await?;
        let _: () = conn
            .del(format!("{}{key}", self.prefix))
            .await
            .map_err(unavailable)?;
        Ok(())
    }
}
