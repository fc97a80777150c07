//! Building the server: checks that fail fast with one line naming the variable,
//! connections and migrations (`infra`), the root user and the domain's services
//! (`services`), the background runtime (`background`), then the HTTP listener.

mod ai;
mod auth;
mod background;
mod checks;
mod infra;
mod offline;
mod services;

pub use checks::StartupError;
pub use offline::{judged_rounds, migrate, stored_ai_target};

use crate::config::Config;
use actix_web::dev::Server;
use actix_web::web;
use reviewd_api::serve::{Serving, http_server};
use reviewd_domain::services::MonitoringService;
use reviewd_runtime::worker::Workers;
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

/// How long a stop waits for in-flight requests, then for running reviews.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(30);
/// How long start-up waits for PostgreSQL or Redis before giving up.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A built server bound to its port, not yet running.
pub struct Application {
    port: u16,
    server: Server,
    workers: Option<Workers>,
    monitoring: Arc<MonitoringService>,
}

impl Application {
    /// The API and the dashboard on `config`'s port, with the review workers and the
    /// periodic jobs the configuration turns on.
    ///
    /// # Errors
    /// The first failed check, naming its variable.
    pub async fn build(config: Config) -> Result<Self, StartupError> {
        if !config.inactive_ai_variables.is_empty() {
            tracing::warn!(
                variables = ?config.inactive_ai_variables,
                "config.inactive_ai_provider: only PROVIDERA_* is used; these are ignored"
            );
        }
        let infra = infra::Infra::connect(&config).await?;
        let wired = services::wire(&config, &infra).await?;
        let workers = background::workers(&config, &wired.state, wired.queue);
        background::periodic_jobs(&config, &wired.state, infra.pool.clone(), wired.instance);
        let monitoring = wired.state.monitoring.clone();

        let listener = TcpListener::bind((config.hostname.as_str(), config.port)).map_err(|e| {
            StartupError::new(
                "PORT",
                format!("cannot listen on {}:{}: {e}", config.hostname, config.port),
            )
        })?;
        let port = listener
            .local_addr()
            .map_err(|e| StartupError::new("PORT", e.to_string()))?
            .port();
        let server = http_server(
            web::Data::new(wired.state),
            Serving {
                listener,
                http_workers: config.http_workers,
                shutdown_timeout: SHUTDOWN_TIMEOUT,
                pages: reviewd_web::configure,
            },
        )
        .map_err(|e| StartupError::new("PORT", e.to_string()))?;
        tracing::info!(
            address = %format!("http://{}:{port}", config.hostname),
            app_url = %config.app_url,
            "server.listening"
        );
        Ok(Self {
            port,
            server,
            workers,
            monitoring,
        })
    }

    /// The bound port (useful when `PORT=0`).
    #[must_use]
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serves until SIGINT/SIGTERM, then stops accepting, drains in-flight requests
    /// and running reviews (up to `SHUTDOWN_TIMEOUT` each), and flushes this
    /// replica's request counts.
    ///
    /// # Errors
    /// I/O errors of the server.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let served = self.server.await;
        if let Some(workers) = &self.workers {
            workers.drain(SHUTDOWN_TIMEOUT).await;
        }
        if let Err(e) = self.monitoring.flush_api().await {
            tracing::warn!(error = %e, "monitoring.final_flush_failed");
        }
        served
    }
}
