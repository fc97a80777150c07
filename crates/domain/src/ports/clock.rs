//! Time, as the domain sees it: the current instant and a wait. The server's adapter
//! is `reviewd_adapters::clock::SystemClock` (the system time and tokio's timer); a test
//! can pass a clock that records the waits instead of spending them, so the domain
//! needs no runtime and its backoffs cost no wall time in tests.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::time::Duration;

#[async_trait]
pub trait Clock: Send + Sync {
    /// Now.
    fn now(&self) -> DateTime<Utc>;

    /// Returns after `duration` has passed (on this clock).
    async fn sleep(&self, duration: Duration);
}
