//! The reviewd server: configuration, actix-web routes, the background runtime (workers,
//! scheduler, jobs) and the wiring of adapters (`reviewd-adapters` and the infrastructure
//! crates) into domain services. Handlers own HTTP concerns only; rules live in the domain.

pub mod backup;
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
pub mod logs;
pub mod metrics;
pub mod openapi;
pub mod preparer;
pub mod request_id;
pub mod routes;
pub mod scheduler;
pub mod startup;
pub mod state;
pub mod telemetry;
pub mod worker;

pub use config::{Config, ConfigError};
pub use startup::{Application, StartupError};
