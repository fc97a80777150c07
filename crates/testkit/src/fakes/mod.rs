//! Every fake of testkit, in one folder: small working in-memory implementations of the
//! ports, for domain tests (`ai`, `clock`, `code`, `hosting`, `queue`...), and local
//! servers that speak the real services' protocols and JSON shapes, for the adapters'
//! and the API's tests (`github`, `gitlab` over the shared `hosted` store, `openai`,
//! `smtp`).

pub mod ai;
mod clock;
pub mod code;
mod credentials;
pub(crate) mod github;
pub(crate) mod gitlab;
pub(crate) mod hosted;
pub mod hosting;
pub mod notifier;
pub(crate) mod openai;
pub mod queue;
pub mod smtp;
pub mod system;
mod throttle;

pub use clock::FakeClock;
pub use credentials::{FakePasswordHasher, FakeTokenHasher, FakeWebhookVerifier};
pub use throttle::InMemoryThrottle;
