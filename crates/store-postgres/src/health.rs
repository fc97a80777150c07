//! The database's health probe: reachability and round-trip time.

use crate::PgPool;
use async_trait::async_trait;
use reviewd_domain::ports::{HealthProbe, ProbeError};
use std::time::Duration;

/// Reports the database's reachability and round-trip time.
pub struct PgHealthProbe {
    pool: PgPool,
}

impl PgHealthProbe {
    #[must_use]
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

#[async_trait]
impl HealthProbe for PgHealthProbe {
    fn name(&self) -> &'static str {
        "database"
    }

    async fn ping(&self) -> Result<Duration, ProbeError> {
        crate::ping(&self.pool).await.map_err(ProbeError)
    }
}
