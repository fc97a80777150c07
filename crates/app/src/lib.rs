//! The reviewd server: configuration, actix-web routes and the wiring of adapters
//! into domain services. Handlers own HTTP concerns only; rules live in the domain.

pub mod ai;
pub mod backup;
pub mod clock;
pub mod config;
pub mod cors;
pub mod csrf;
pub mod disk;
pub mod envelope;
pub mod error;
pub mod extract;
pub mod fallback;
pub mod field_schemas;
pub mod hygiene;
pub mod jobs;
pub mod logs;
pub mod metrics;
pub mod notify;
pub mod openapi;
pub mod platforms;
pub mod preparer;
pub mod request_id;
pub mod routes;
pub mod sampler;
pub mod scheduler;
pub mod startup;
pub mod state;
pub mod telemetry;
pub mod worker;

pub use config::{Config, ConfigError};
pub use startup::{Application, StartupError};
