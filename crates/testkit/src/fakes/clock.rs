use async_trait::async_trait;
use chrono::{DateTime, TimeZone, Utc};
use reviewd_domain::ports::Clock;
use std::sync::Mutex;
use std::time::Duration;

/// A clock that only moves when told to: `sleep` advances it at once and records the
/// wait, so backoffs, leases and timeouts are tested without spending wall time.
///
/// [`FakeClock::on_tokio_time`] makes one whose waits wait on tokio's timer instead: a
/// loop that sleeps between its steps (a heartbeat) then takes them one wait at a time
/// rather than spinning, and under `#[tokio::test(start_paused = true)]` tokio moves
/// its time only when every task waits, so no wall time is spent either.
#[derive(Debug)]
pub struct FakeClock {
    now: Mutex<DateTime<Utc>>,
    /// How far each reading moves the clock (zero: it stands still between calls).
    tick: chrono::Duration,
    slept: Mutex<Vec<Duration>>,
    /// Set on a clock that follows tokio's time from this instant.
    tokio_origin: Option<tokio::time::Instant>,
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
            tokio_origin: None,
        }
    }

    /// A clock that reads tokio's time (plus whatever [`FakeClock::advance`] adds) and
    /// whose `sleep` waits on tokio's timer.
    #[must_use]
    pub fn on_tokio_time() -> Self {
        Self {
            tokio_origin: Some(tokio::time::Instant::now()),
            ..Self::default()
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
        match self.tokio_origin {
            Some(origin) => *now + chrono::Duration::from_std(origin.elapsed()).unwrap(),
            None => *now,
        }
    }

    async fn sleep(&self, duration: Duration) {
        self.slept.lock().unwrap().push(duration);
        if self.tokio_origin.is_some() {
            tokio::time::sleep(duration).await;
            return;
        }
        self.advance(duration);
        // Let other tasks run, as a real wait would.
        tokio::task::yield_now().await;
    }
}
