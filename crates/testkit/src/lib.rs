//! Test support for reviewd: small working in-memory implementations of the ports
//! (for domain tests) and [`TestDb`], a migrated PostgreSQL database per test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod fakes;
mod test_db;

pub use test_db::{TestDb, test_redis_url};
