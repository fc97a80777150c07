//! In-memory fakes: small working implementations of the ports, for domain tests.

pub mod ai;
mod clock;
pub mod code;
mod credentials;
pub mod hosting;
pub mod notifier;
pub mod queue;
pub mod system;
mod throttle;

pub use clock::FakeClock;
pub use credentials::{FakePasswordHasher, FakeTokenHasher};
pub use throttle::InMemoryThrottle;
