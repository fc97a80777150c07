//! GitHub App installations keep the project list current: an installation
//! created (or unsuspended, or given repositories) syncs the App config's
//! projects and enables the repositories named; repositories removed, or an
//! installation deleted or suspended, disable theirs. Projects are never deleted
//! here: their reviews stay, and a repository added back is enabled again.

use super::ServiceError;
use super::projects::ProjectService;
use crate::model::{
    AuthType, InstallationChange, InstallationEvent, PlatformConfig, PlatformType,
    ProjectSettingsChanges,
};
use crate::ports::{PlatformConfigRepository, PlatformError, ProjectRepository};
use std::sync::Arc;
use uuid::Uuid;

/// What one installation event changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstallationReport {
    /// The App configs the event concerned.
    pub configs: usize,
    /// Projects synced from the platform.
    pub synced: usize,
    pub enabled: usize,
    pub disabled: usize,
}

pub struct InstallationSync {
    projects: Arc<ProjectService>,
    store: Arc<dyn ProjectRepository>,
    configs: Arc<dyn PlatformConfigRepository>,
}

impl InstallationSync {
    pub fn new(
        projects: Arc<ProjectService>,
        store: Arc<dyn ProjectRepository>,
        configs: Arc<dyn PlatformConfigRepository>,
    ) -> Self {
        Self {
            projects,
            store,
            configs,
        }
    }

    /// Applies `event` to the App configs among `config_ids` (those whose secret
    /// signed the delivery) that use this installation: all of them when the
    /// config names none, else the one it names.
    ///
    /// # Errors
    /// Store failures; a failed sync of one config is logged and the others go on.
    pub async fn apply(
        &self,
        config_ids: &[Uuid],
        event: &InstallationEvent,
    ) -> Result<InstallationReport, ServiceError> {
        let mut report = InstallationReport::default();
        for id in config_ids {
            let Ok(config) = self.configs.get(*id).await else {
                continue;
            };
            if !uses(&config, event) {
                continue;
            }
            report.configs += 1;
            match &event.change {
                InstallationChange::Available { repository_ids } => {
                    let reached = match self.projects.sync(config.id).await {
                        Ok(sync) => {
                            report.synced += sync.synced;
                            sync.reached
                        }
                        Err(e) => {
                            tracing::warn!(platform_config.id = %config.id, installation.id = event.installation_id, error = %e, "installation.sync_failed");
                            Vec::new()
                        }
                    };
                    // An unsuspension names no repository: every one the sync reached.
                    let ids = if repository_ids.is_empty() {
                        &reached
                    } else {
                        repository_ids
                    };
                    report.enabled += self.set_enabled(&config, ids, true).await?;
                }
                InstallationChange::Unavailable { repository_ids } if repository_ids.is_empty() => {
                    // A suspension names no repository: what the App no longer
                    // reaches is disabled.
                    let reachable = self.reachable(&config).await?;
                    let gone: Vec<String> = self
                        .store
                        .list_all()
                        .await?
                        .into_iter()
                        .filter(|p| p.platform_config_id == config.id)
                        .map(|p| p.platform_project_id)
                        .filter(|id| !reachable.contains(id))
                        .collect();
                    report.disabled += self.set_enabled(&config, &gone, false).await?;
                }
                InstallationChange::Unavailable { repository_ids } => {
                    report.disabled += self.set_enabled(&config, repository_ids, false).await?;
                }
            }
        }
        tracing::info!(
            installation.id = event.installation_id,
            configs = report.configs,
            synced = report.synced,
            enabled = report.enabled,
            disabled = report.disabled,
            "installation.applied"
        );
        Ok(report)
    }

    /// What the config reaches now. A refusal (an installation suspended: GitHub
    /// mints it no token) is nothing reached; any other failure is an error, so
    /// that an outage disables nothing.
    async fn reachable(
        &self,
        config: &PlatformConfig,
    ) -> Result<std::collections::HashSet<String>, ServiceError> {
        match self.projects.reachable(config.id).await {
            Err(ServiceError::Platform(PlatformError::Forbidden(_))) => {
                Ok(std::collections::HashSet::new())
            }
            other => other,
        }
    }

    /// Enables or disables the config's projects of these repositories; how many
    /// changed.
    async fn set_enabled(
        &self,
        config: &PlatformConfig,
        repository_ids: &[String],
        enabled: bool,
    ) -> Result<usize, ServiceError> {
        let mut changed = 0;
        for repository in repository_ids {
            let projects = self
                .store
                .find_by_platform(PlatformType::Github, repository)
                .await?;
            for project in projects
                .into_iter()
                .filter(|p| p.platform_config_id == config.id && p.enabled != enabled)
            {
                self.store
                    .update_settings(
                        project.id,
                        ProjectSettingsChanges {
                            enabled: Some(enabled),
                            ..ProjectSettingsChanges::default()
                        },
                    )
                    .await?;
                changed += 1;
            }
        }
        Ok(changed)
    }
}

/// Whether the config reviews through this installation (of its App, when the
/// event names the App: two Apps sharing a webhook secret stay apart).
fn uses(config: &PlatformConfig, event: &InstallationEvent) -> bool {
    let same_app = event.app_id.is_none_or(|app| {
        config
            .app_id
            .as_deref()
            .and_then(|id| id.trim().parse::<i64>().ok())
            == Some(app)
    });
    config.platform_type == PlatformType::Github
        && config.auth_type == AuthType::App
        && same_app
        && config
            .installation_id
            .is_none_or(|id| id == event.installation_id)
}
