use deadpool_redis::{Config, Pool, Runtime, redis};
use std::time::{Duration, Instant};

/// The shared pool of Redis connections.
pub type RedisPool = Pool;

/// Builds a pool and proves the server answers `PING`.
///
/// # Errors
/// The reason as one line: a malformed URL, a refused connection, or no answer within
/// `timeout`.
pub async fn connect(url: &str, timeout: Duration) -> Result<RedisPool, String> {
    let mut config = Config::from_url(url);
    config.pool = Some(deadpool_redis::PoolConfig {
        max_size: 32,
        timeouts: deadpool_redis::Timeouts {
            wait: Some(timeout),
            create: Some(timeout),
            recycle: Some(timeout),
        },
        ..Default::default()
    });
    let pool = config
        .create_pool(Some(Runtime::Tokio1))
        .map_err(|e| e.to_string())?;
    match tokio::time::timeout(timeout, ping(&pool)).await {
        Ok(Ok(_)) => Ok(pool),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(format!("no answer within {timeout:?}")),
    }
}

/// One `PING`; returns the round-trip time.
///
/// # Errors
/// The pool's or the server's error, as text.
pub async fn ping(pool: &RedisPool) -> Result<Duration, String> {
    let started = Instant::now();
    let mut conn = pool.get().await.map_err(|e| e.to_string())?;
    let pong: String = redis::cmd("PING")
        .query_async(&mut conn)
        .await
        .map_err(|e| e.to_string())?;
    if pong != "PONG" {
        return Err(format!("unexpected answer to PING: {pong}"));
    }
    Ok(started.elapsed())
}
