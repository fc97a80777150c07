//! The domain's `Clock` on the system time and tokio's timer.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use reviewd_domain::ports::Clock;
use std::time::Duration;

#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

#[async_trait]
impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }

    async fn sleep(&self, duration: Duration) {
        tokio::time::sleep(duration).await;
    }
}
