//! The `HealthProbe` contract: a reachable dependency answers with its round trip,
//! an unreachable one with an error that says why, under the same name.

use reviewd_domain::ports::HealthProbe;
use std::time::Duration;

/// `up` and `down` are the same adapter, on a reachable and an unreachable store.
pub async fn run(up: &dyn HealthProbe, down: &dyn HealthProbe) {
    assert!(!up.name().is_empty());
    assert_eq!(
        up.name(),
        down.name(),
        "the name is the dependency's, not its state"
    );
    let round_trip = up.ping().await.expect("a reachable store answers");
    assert!(round_trip < Duration::from_secs(5), "{round_trip:?}");
    let err = down.ping().await.expect_err("an unreachable store fails");
    assert!(!err.0.is_empty(), "the error says why");
}
