//! reviewd's domain: entities, the services that hold the product's rules, and the
//! port traits that adapters (Postgres, Redis, platforms, AI providers, notifiers)
//! implement. This crate knows no web, database or HTTP-client crate; adapters
//! depend on it, never the other way round.

pub mod context;
pub mod error_code;
pub mod http_url;
pub mod model;
pub mod pagination;
pub mod ports;
pub mod review;
pub mod services;

pub use error_code::ErrorCode;
pub use pagination::{Page, PageRequest};
