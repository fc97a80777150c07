//! The clock: time does not run backwards, and a wait has passed on the clock when
//! it returns (backoffs and leases rely on both).

use reviewd_domain::ports::Clock;
use std::time::Duration;

pub async fn run(clock: &dyn Clock) {
    let start = clock.now();
    assert!(clock.now() >= start, "never backwards");

    let wait = Duration::from_millis(20);
    clock.sleep(wait).await;
    let waited = clock.now() - start;
    assert!(
        waited >= chrono::Duration::from_std(wait).unwrap(),
        "a {wait:?} wait has passed on the clock when it returns ({waited})"
    );

    let before = clock.now();
    clock.sleep(Duration::ZERO).await;
    assert!(clock.now() >= before, "a zero wait returns");
}
