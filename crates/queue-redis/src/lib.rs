//! Redis adapters (deadpool-redis): the login throttle's counters and, as the
//! review pipeline grows, the task queue and webhook dedup keys. Every key is
//! under one prefix so that several deployments or tests can share a server.

mod health;
mod pool;
mod throttle;

pub use health::RedisHealthProbe;
pub use pool::{RedisPool, connect, ping};
pub use throttle::{RedisLoginThrottle, ThrottleLimits};
