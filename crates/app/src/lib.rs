//! The reviewd server: configuration, actix-web routes, the periodic jobs' list, and the
//! wiring of adapters (`reviewd-adapters` and the infrastructure crates) and of the
//! background runtime (`reviewd-runtime`) into domain services. Handlers own HTTP concerns only; rules live in the domain.

pub mod config;
pub mod cors;
pub mod csrf;
pub mod envelope;
pub mod error;
pub mod extract;
pub mod fallback;
pub mod field_schemas;
pub mod hygiene;
pub mod jobs;
pub mod metrics;
pub mod openapi;
pub mod request_id;
pub mod routes;
pub mod startup;
pub mod state;
pub mod telemetry;

pub use config::{Config, ConfigError};
pub use startup::{Application, StartupError};
