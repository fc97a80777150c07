//! The start-up checks that fail fast with one line naming the variable at fault, and the
//! name this replica goes by.

use crate::config::Config;
use reviewd_domain::services::{AuthService, RootOutcome};
use std::path::Path;

/// Why the server cannot start, as one line naming the variable at fault.
#[derive(Debug, thiserror::Error)]
#[error("{var}: {reason}")]
pub struct StartupError {
    pub var: &'static str,
    pub reason: String,
}

impl StartupError {
    pub(crate) fn new(var: &'static str, reason: impl Into<String>) -> Self {
        Self {
            var,
            reason: reason.into(),
        }
    }
}

/// Creates `dir` if needed and proves a file can be written in it.
pub(super) fn ensure_writable(var: &'static str, dir: &Path) -> Result<(), StartupError> {
    let fail = |e: std::io::Error| {
        StartupError::new(var, format!("{} is not writable: {e}", dir.display()))
    };
    std::fs::create_dir_all(dir).map_err(fail)?;
    let probe = dir.join(format!(".reviewd-write-check-{}", std::process::id()));
    std::fs::write(&probe, b"ok").map_err(fail)?;
    std::fs::remove_file(&probe).map_err(fail)
}

/// Creates the root user of `ROOT_EMAIL` and `ROOT_PASSWORD` when both are set and it
/// does not exist yet.
pub(super) async fn ensure_root(auth: &AuthService, config: &Config) -> Result<(), StartupError> {
    match (&config.root_email, &config.root_password) {
        (Some(email), Some(password)) => {
            let outcome = auth
                .ensure_root(email, password.expose())
                .await
                .map_err(|e| {
                    StartupError::new("ROOT_EMAIL", format!("cannot create the root user: {e}"))
                })?;
            if outcome == RootOutcome::Created {
                tracing::info!(email = %email, "root user created; log in at {}", config.app_url);
            }
        }
        _ => {
            tracing::warn!("ROOT_EMAIL and ROOT_PASSWORD are not both set: no root user is created")
        }
    }
    Ok(())
}

/// This machine's (or container's) name, for telling replicas apart in job runs,
/// samples and queue consumers. `HOSTNAME` is the address the server listens on
/// (often `0.0.0.0`, the same in every container), so the kernel's name is used,
/// and the listen address only where there is none.
pub(super) fn machine_name(listen_host: &str) -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| listen_host.to_owned())
}
