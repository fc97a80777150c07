use async_trait::async_trait;
use chrono::{DateTime, TimeZone, Utc};
use reviewd_domain::ports::Clock;
use std::sync::Mutex;
use std::time::Duration;

/// A clock that only moves when told to: `sleep` advances it at once and records the
/// wait, so backoffs, leases and timeouts are tested without spending wall time.
#[derive(Debug)]
pub struct FakeClock {
    now: Mutex<DateTime<Utc>>,
    /// How far each reading moves the clock (zero: it stands still between calls).
    tick: chrono::Duration,
    slept: Mutex<Vec<Duration>>,
}

impl Default for FakeClock {
    fn default() -> Self {
        Self::at(Utc.with_ymd_and_hms(2026, 1, 5, 9, 0, 0).unwrap())
    }
}

impl FakeClock {
    #[must_use]
    pub fn at(now: DateTime<Utc>) -> Self {
        Self {
            now: Mutex::new(now),
            tick: chrono::Duration::zero(),
            slept: Mutex::new(Vec::new()),
        }
    }

    /// A clock that moves `tick` forward at every reading, as wall time passes
    /// between a real store's statements: the contract suites run the in-memory
    /// store on it, so "older than now" means the same as in PostgreSQL.
    #[must_use]
    pub fn ticking(tick: Duration) -> Self {
        Self {
            tick: chrono::Duration::from_std(tick).unwrap(),
            ..Self::default()
        }
    }

    /// Moves the clock forward.
    pub fn advance(&self, by: Duration) {
        let mut now = self.now.lock().unwrap();
        *now += chrono::Duration::from_std(by).unwrap();
    }

    /// Every wait asked of the clock, in order.
    #[must_use]
    pub fn slept(&self) -> Vec<Duration> {
        self.slept.lock().unwrap().clone()
    }
}

#[async_trait]
impl Clock for FakeClock {
    fn now(&self) -> DateTime<Utc> {
        let mut now = self.now.lock().unwrap();
        *now += self.tick;
        *now
    }

    async fn sleep(&self, duration: Duration) {
        self.slept.lock().unwrap().push(duration);
        self.advance(duration);
        // Let other tasks run, as a real wait would.
        tokio::task::yield_now().await;
    }
}
