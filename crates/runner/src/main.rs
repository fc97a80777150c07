//! `reviewd-runner`: claims review tasks from a reviewd server and reviews them on
//! this machine. Settings come from `RUNNER_*` variables (see `--help`).

mod agent;
mod checkout;
mod config;
mod context;
mod git;
mod job;
mod logs;
mod server;
mod tools;

use clap::Parser;
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = config::RunnerConfig::parse().without_empty();
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let subscriber = tracing_subscriber::fmt().with_env_filter(filter);
    if std::env::var("RUNNER_LOG_FORMAT").as_deref() == Ok("json") {
        subscriber.json().init();
    } else {
        subscriber.init();
    }
    agent::Agent::new(config)?.run(stopped()).await
}

/// Resolves on SIGTERM or Ctrl-C.
async fn stopped() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
    tracing::info!("runner.stop_signal");
}
