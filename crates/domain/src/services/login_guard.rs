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
    let client = ip.map(network);
    Keys {
        pair: format!(
            "email-ip:{email}|{}",
            client.as_deref().unwrap_or("unknown")
        ),
        address: client.map(|c| format!("ip:{c}")),
        email: format!("email:{email}"),
    }
}

/// What one client holds: an IPv4 address, or an IPv6 address's /64 (one
/// subscriber gets a whole /64, and could walk through its 2^64 addresses).
fn network(ip: &str) -> String {
    match ip.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V6(v6)) => {
            let s = v6.segments();
            let prefix = std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0);
            format!("{prefix}/64")
        }
        _ => ip.to_owned(),
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
    fn an_ipv6_client_is_its_64() {
        let a = keys("a@x", Some("2001:db8:1:2:aaaa::1"));
        let b = keys("a@x", Some("2001:db8:1:2:ffff::9"));
        assert_eq!(a.address, b.address);
        assert_eq!(a.address.as_deref(), Some("ip:2001:db8:1:2::/64"));
        assert_eq!(a.pair, b.pair);
        assert_eq!(
            keys("a@x", Some("192.0.2.1")).address.as_deref(),
            Some("ip:192.0.2.1")
        );
    }

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
