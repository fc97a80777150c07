//! The connections and shared pieces every service is built on: PostgreSQL (migrated),
//! Redis, the outbound HTTP client, the secret box and the token hasher.

use super::{CONNECT_TIMEOUT, StartupError, checks, offline};
use crate::config::Config;
use reviewd_crypto::{HmacTokenHasher, SecretBox, derive};
use reviewd_domain::ports::TokenHasher;
use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_queue_redis::RedisPool;
use reviewd_store_postgres::{ConfigCache, PgPool};
use std::sync::Arc;
use std::time::Duration;

pub(super) struct Infra {
    pub pool: PgPool,
    pub redis: RedisPool,
    pub http: HttpClient,
    pub secrets: SecretBox,
    pub tokens: Arc<dyn TokenHasher>,
    /// Stored configurations, kept until PostgreSQL says one changed.
    pub cache: ConfigCache,
}

impl Infra {
    pub(super) async fn connect(config: &Config) -> Result<Self, StartupError> {
        checks::ensure_writable("LOG_DIR", &config.log_dir)?;
        checks::ensure_writable("BACKUP_DIR", &config.backup_dir)?;
        let pool = reviewd_store_postgres::connect(
            config.database_url.expose(),
            config.database_pool_size,
            CONNECT_TIMEOUT,
        )
        .await
        .map_err(|e| StartupError::new("DATABASE_URL", format!("PostgreSQL {e}")))?;
        let applied = offline::migrate(config).await?;
        if !applied.is_empty() {
            tracing::info!(migrations = ?applied, "database.migrated");
        }
        // After the migrations, which create the triggers it listens to.
        let cache = ConfigCache::listening(config.database_url.expose());
        let redis = reviewd_queue_redis::connect(config.queue_store_url.expose(), CONNECT_TIMEOUT)
            .await
            .map_err(|e| {
                StartupError::new("QUEUE_STORE_URL", format!("cannot connect to Redis: {e}"))
            })?;
        let http = HttpClient::new(RetryPolicy {
            max_attempts: config.outbound_max_attempts,
            base_delay: Duration::from_millis(config.outbound_retry_base_ms),
            max_delay: Duration::from_secs(30),
            timeout: Duration::from_secs(config.outbound_timeout_secs),
        })
        .map_err(|e| {
            StartupError::new(
                "OUTBOUND_TIMEOUT_SECS",
                format!("cannot build the HTTP client: {e}"),
            )
        })?;
        Ok(Self {
            pool,
            redis,
            http,
            secrets: SecretBox::from_config(
                config.encryption_key.as_ref().map(|k| k.expose()),
                config.auth_secret.expose(),
            ),
            tokens: Arc::new(HmacTokenHasher::new(&derive(
                config.auth_secret.expose(),
                b"reviewd/token-hash/v1",
            ))),
            cache,
        })
    }
}
