//! In-memory fakes: small working implementations of the ports, for domain tests.

mod auth_store;
mod credentials;
mod throttle;

pub use auth_store::InMemoryAuthStore;
pub use credentials::{FakePasswordHasher, FakeTokenHasher};
pub use throttle::InMemoryThrottle;
