//! How failed logins are counted and what they cost, after OWASP's Authentication
//! Cheat Sheet ("Login Throttling", "Account Lockout"): a lock-out per account lets
//! anyone who knows an email lock its owner out, so no count keyed by the email
//! alone ever refuses. Three counts, each over the throttle store's window:
//! - an email from one address: refused past [`PER_PAIR`] (one guesser on one account);
//! - one address, any email: refused past [`PER_ADDRESS`] (one guesser on many
//!   accounts; higher, as an office behind one address shares it);
//! - an email from anywhere: never refused; past [`SLOW_AFTER`] each attempt on it
//!   waits, up to [`MAX_DELAY`] (a guesser spread over many addresses is slowed,
//!   the owner still gets in).

use super::ServiceError;
use crate::ports::{Clock, LoginThrottle};
use std::sync::Arc;
use std::time::Duration;

/// The window the counts are kept over (the throttle store's).
pub const LOGIN_WINDOW: Duration = Duration::from_secs(15 * 60);
pub const PER_PAIR: u32 = 10;
pub const PER_ADDRESS: u32 = 50;
pub const SLOW_AFTER: u32 = 5;
pub const MAX_DELAY: Duration = Duration::from_secs(3);

pub struct LoginGuard {
    throttle: Arc<dyn LoginThrottle>,
    clock: Arc<dyn Clock>,
}

/// The keys one attempt is counted under.
struct Keys {
    pair: String,
    address: Option<String>,
    email: String,
}

fn keys(email: &str, ip: Option<&str>) -> Keys {
    Keys {
        pair: format!("email-ip:{email}|{}", ip.unwrap_or("unknown")),
        address: ip.map(|ip| format!("ip:{ip}")),
        email: format!("email:{email}"),
    }
}

/// The wait before an attempt on an email with `failures` counted: 250 ms past
/// the threshold, doubling, at most [`MAX_DELAY`].
#[must_use]
pub fn delay_for(failures: u32) -> Duration {
    if failures < SLOW_AFTER {
        return Duration::ZERO;
    }
    let doublings = (failures - SLOW_AFTER).min(8);
    (Duration::from_millis(250) * 2u32.pow(doublings)).min(MAX_DELAY)
}

impl LoginGuard {
    #[must_use]
    pub fn new(throttle: Arc<dyn LoginThrottle>, clock: Arc<dyn Clock>) -> Self {
        Self { throttle, clock }
    }

    /// Before the password is checked: refused past a refusing count, else slowed
    /// by the email's count (the right password waits alike, so the wait says
    /// nothing of it).
    pub(super) async fn admit(&self, email: &str, ip: Option<&str>) -> Result<(), ServiceError> {
        let k = keys(email, ip);
        self.throttle.check(&k.pair, PER_PAIR).await?;
        if let Some(address) = &k.address {
            self.throttle.check(address, PER_ADDRESS).await?;
        }
        let failures = self.throttle.check(&k.email, u32::MAX).await?;
        let wait = delay_for(failures);
        if !wait.is_zero() {
            tracing::info!(wait_ms = wait.as_millis(), "login.slowed");
            self.clock.sleep(wait).await;
        }
        Ok(())
    }

    pub(super) async fn failed(&self, email: &str, ip: Option<&str>) -> Result<(), ServiceError> {
        let k = keys(email, ip);
        for key in [Some(&k.pair), k.address.as_ref(), Some(&k.email)]
            .into_iter()
            .flatten()
        {
            self.throttle.record_failure(key).await?;
        }
        Ok(())
    }

    /// The owner got in from here: this address's count on the email is forgotten.
    /// The email's own count and the address's stay until their windows end: a
    /// success proves the password, not that the other attempts were the owner's.
    pub(super) async fn succeeded(
        &self,
        email: &str,
        ip: Option<&str>,
    ) -> Result<(), ServiceError> {
        self.throttle.reset(&keys(email, ip).pair).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_delay_grows_then_stops_at_its_ceiling() {
        assert_eq!(delay_for(0), Duration::ZERO);
        assert_eq!(delay_for(SLOW_AFTER - 1), Duration::ZERO);
        assert_eq!(delay_for(SLOW_AFTER), Duration::from_millis(250));
        assert_eq!(delay_for(SLOW_AFTER + 1), Duration::from_millis(500));
        assert_eq!(delay_for(SLOW_AFTER + 3), Duration::from_secs(2));
        assert_eq!(delay_for(1_000_000), MAX_DELAY);
    }
}
