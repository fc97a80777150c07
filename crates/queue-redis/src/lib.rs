//! Redis adapters (deadpool-redis): the review task queue (a stream with a consumer
//! group), webhook delivery dedup keys, and the login throttle's counters. Every key is
//! under one prefix so that several deployments or tests can share a server.

mod delivery_log;
mod health;
mod pool;
mod task_queue;
mod throttle;
mod wipe;

pub use delivery_log::RedisDeliveryLog;
pub use health::RedisHealthProbe;
pub use pool::{RedisPool, connect, ping};
pub use task_queue::RedisTaskQueue;
pub use throttle::RedisLoginThrottle;
pub use wipe::RedisDataWipe;
