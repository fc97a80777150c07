use crate::RedisPool;
use crate::task_queue::{ensure_group, stream_key};
use async_trait::async_trait;
use deadpool_redis::redis;
use reviewd_domain::ports::{DataWipe, RepoError, ResetCaller};

/// Deletes every key under the deployment's prefix (queue, delivery ids, login
/// counters), then recreates the empty task stream so workers keep pulling.
pub struct RedisDataWipe {
    pool: RedisPool,
    prefix: String,
}

impl RedisDataWipe {
    #[must_use]
    pub fn new(pool: RedisPool, prefix: &str) -> Self {
        Self {
            pool,
            prefix: prefix.to_owned(),
        }
    }
}

fn unavailable(e: impl std::fmt::Display) -> RepoError {
    RepoError::Unavailable(e.to_string())
}

/// `*`, `?`, `[` and `\` are pattern characters in `SCAN MATCH`; a prefix holding
/// them must match only itself.
fn escape_pattern(prefix: &str) -> String {
    let mut out = String::with_capacity(prefix.len() + 1);
    for c in prefix.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('*');
    out
}

#[async_trait]
impl DataWipe for RedisDataWipe {
    fn store(&self) -> &'static str {
        "queue"
    }

    async fn wipe(&self, _caller: &ResetCaller) -> Result<u64, RepoError> {
        // Without a prefix the pattern would take other applications' keys too.
        if self.prefix.is_empty() {
            return Err(RepoError::Other(
                "QUEUE_KEY_PREFIX is empty: refusing to delete every key of the Redis server"
                    .into(),
            ));
        }
        let mut conn = self.pool.get().await.map_err(unavailable)?;
        let pattern = escape_pattern(&self.prefix);
        let mut cursor: u64 = 0;
        let mut removed: u64 = 0;
        loop {
            let (next, keys): (u64, Vec<String>) = redis::cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg(&pattern)
                .arg("COUNT")
                .arg(500)
                .query_async(&mut conn)
                .await
                .map_err(unavailable)?;
            if !keys.is_empty() {
                let n: u64 = redis::cmd("DEL")
                    .arg(&keys)
                    .query_async(&mut conn)
                    .await
                    .map_err(unavailable)?;
                removed += n;
            }
            if next == 0 {
                break;
            }
            cursor = next;
        }
        drop(conn);
        ensure_group(&self.pool, &stream_key(&self.prefix))
            .await
            .map_err(unavailable)?;
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use super::escape_pattern;

    #[test]
    fn prefix_pattern_characters_are_escaped() {
        assert_eq!(escape_pattern("reviewd:"), "reviewd:*");
        assert_eq!(escape_pattern("a*b?[c]"), "a\\*b\\?\\[c\\]*");
    }
}
