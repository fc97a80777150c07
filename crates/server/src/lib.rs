//! The composition root: the configuration read from the environment (`config`), the
//! wiring of adapters, domain services, the background runtime and the HTTP edge into
//! one server (`startup`), the periodic jobs' list (`jobs`) and logging (`telemetry`).
//! The `reviewd` binary (`main.rs`) and the end-to-end tests start the server from here.

pub mod config;
mod jobs;
pub mod startup;
pub mod telemetry;

pub use config::{Config, ConfigError};
pub use startup::{Application, StartupError};
