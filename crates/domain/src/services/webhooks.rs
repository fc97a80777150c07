//! The webhooks reviewd registers on the platforms so that MR/PR and comment events
//! reach its receivers.

use super::ServiceError;
use super::platform_access::platform_for;
use crate::ErrorCode;
use crate::model::ProjectId;
use crate::model::{AuthType, PlatformType, Project, WebhookState, WebhookStatus};
use crate::ports::{
    PlatformClients, PlatformConfigRepository, PlatformError, ProjectRepository, RepoError,
};
use std::sync::Arc;

/// Result of one project in a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookResult {
    pub project_id: ProjectId,
    pub success: bool,
    pub webhook_id: Option<String>,
    pub webhook_url: Option<String>,
    pub error: Option<String>,
}

/// Counts of a verification pass over all projects.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerifySummary {
    pub checked: u64,
    pub active: u64,
    pub inactive: u64,
    pub error: u64,
    pub unknown: u64,
    pub not_configured: u64,
}

pub struct WebhookService {
    projects: Arc<dyn ProjectRepository>,
    configs: Arc<dyn PlatformConfigRepository>,
    clients: Arc<dyn PlatformClients>,
    /// `WEBHOOK_BASE_URL`: where the platforms reach this server.
    base_url: String,
}

/// Why an App config's projects get no repository hook.
const APP_HOOK: &str = "a GitHub App config needs no repository hook: the App's own webhook \
     (set in the App's settings) delivers every installed repository's events";

/// A project's stored hook state, unchanged.
fn kept_as_is(project: &Project) -> WebhookState {
    WebhookState {
        webhook_id: project.webhook_id.clone(),
        webhook_url: project.webhook_url.clone(),
        status: project.webhook_status,
    }
}

impl WebhookService {
    pub fn new(
        projects: Arc<dyn ProjectRepository>,
        configs: Arc<dyn PlatformConfigRepository>,
        clients: Arc<dyn PlatformClients>,
        base_url: &str,
    ) -> Self {
        Self {
            projects,
            configs,
            clients,
            base_url: base_url.trim_end_matches('/').to_owned(),
        }
    }

    /// The receiver of a platform type on this server.
    #[must_use]
    pub fn receiver_url(&self, platform_type: PlatformType) -> String {
        format!("{}/api/webhook/{}", self.base_url, platform_type.as_str())
    }

    /// Registers a webhook on each project's platform (reusing one that already points
    /// at the same URL), with its config's webhook secret. Failures are per project.
    ///
    /// # Errors
    /// Only store failures; everything else is reported per project.
    pub async fn create_many(
        &self,
        project_ids: &[ProjectId],
        url: Option<&str>,
    ) -> Result<Vec<WebhookResult>, ServiceError> {
        let mut results = Vec::with_capacity(project_ids.len());
        for &project_id in project_ids {
            let outcome = self.create_one(project_id, url).await;
            let result = match outcome {
                Ok(project) => WebhookResult {
                    project_id,
                    success: true,
                    webhook_id: project.webhook_id,
                    webhook_url: project.webhook_url,
                    error: None,
                },
                Err(ServiceError::Unavailable(e)) => return Err(ServiceError::Unavailable(e)),
                Err(e) => {
                    let app = matches!(&e, ServiceError::BadRequest { message, .. } if message == APP_HOOK);
                    if !matches!(e, ServiceError::NotFound(_)) && !app {
                        let state = WebhookState {
                            status: Some(WebhookStatus::Error),
                            ..WebhookState::default()
                        };
                        let _ = self.projects.set_webhook(project_id, state).await;
                    }
                    WebhookResult {
                        project_id,
                        success: false,
                        webhook_id: None,
                        webhook_url: None,
                        error: Some(e.to_string()),
                    }
                }
            };
            results.push(result);
        }
        Ok(results)
    }

    async fn create_one(
        &self,
        project_id: ProjectId,
        url: Option<&str>,
    ) -> Result<Project, ServiceError> {
        let (project, config) = self.project_and_config(project_id).await?;
        if config.auth_type == AuthType::App {
            return Err(ServiceError::BadRequest {
                code: ErrorCode::UnsupportedPlatform,
                message: APP_HOOK.into(),
            });
        }
        let platform = platform_for(self.clients.as_ref(), &config)?;
        let url = url.map_or_else(|| self.receiver_url(project.platform_type), str::to_owned);
        let target = project.platform_ref();
        let existing = platform
            .list_webhooks(&target)
            .await?
            .into_iter()
            .find(|h| h.url == url);
        let hook = match existing {
            Some(hook) => hook,
            None => {
                let secret = config
                    .webhook_secret
                    .as_ref()
                    .map(|s| s.expose().to_owned());
                platform
                    .create_webhook(&target, &url, secret.as_deref())
                    .await?
            }
        };
        let state = WebhookState {
            webhook_id: Some(hook.id),
            webhook_url: Some(hook.url),
            status: Some(WebhookStatus::Active),
        };
        let project = self.projects.set_webhook(project_id, state).await?;
        tracing::info!(project.id = %project_id, webhook.id = ?project.webhook_id, "webhook.created");
        Ok(project)
    }

    /// Deletes the project's webhook on its platform (already gone counts as done) and
    /// forgets it.
    ///
    /// # Errors
    /// `NotFound` for an unknown project; `BadRequest` when none is stored; platform failures.
    pub async fn remove(&self, project_id: ProjectId) -> Result<Project, ServiceError> {
        let (project, config) = self.project_and_config(project_id).await?;
        let hook_id = project
            .webhook_id
            .clone()
            .ok_or_else(|| ServiceError::BadRequest {
                code: ErrorCode::NoWebhook,
                message: "this project has no stored webhook to remove".into(),
            })?;
        let platform = platform_for(self.clients.as_ref(), &config)?;
        match platform
            .delete_webhook(&project.platform_ref(), &hook_id)
            .await
        {
            Ok(()) | Err(PlatformError::NotFound(_)) => {}
            Err(e) => return Err(e.into()),
        }
        let project = self
            .projects
            .set_webhook(project_id, WebhookState::default())
            .await?;
        tracing::info!(project.id = %project_id, "webhook.removed");
        Ok(project)
    }

    /// Forgets the stored webhook without calling the platform.
    ///
    /// # Errors
    /// `NotFound` for an unknown project.
    pub async fn clear(&self, project_id: ProjectId) -> Result<Project, ServiceError> {
        self.projects
            .set_webhook(project_id, WebhookState::default())
            .await
            .map_err(|e| ServiceError::from_repo(e, "project"))
    }

    /// Checks every project's webhook on its platform and stores the outcome:
    /// `active` when our hook is there, `inactive` when a stored hook is gone,
    /// `error` when the platform refused to tell (permissions, project gone),
    /// `unknown` when it could not be reached, and none when no hook exists.
    ///
    /// # Errors
    /// Store failures.
    pub async fn verify_all(&self) -> Result<VerifySummary, ServiceError> {
        let mut summary = VerifySummary::default();
        for project in self.projects.list_all().await? {
            let state = self.verify_one(&project).await;
            match state.status {
                Some(WebhookStatus::Active) => summary.active += 1,
                Some(WebhookStatus::Inactive) => summary.inactive += 1,
                Some(WebhookStatus::Error) => summary.error += 1,
                Some(WebhookStatus::Unknown) => summary.unknown += 1,
                None => summary.not_configured += 1,
            }
            summary.checked += 1;
            self.projects.set_webhook(project.id, state).await?;
        }
        tracing::info!(
            checked = summary.checked,
            active = summary.active,
            "webhooks.verified"
        );
        Ok(summary)
    }

    async fn verify_one(&self, project: &Project) -> WebhookState {
        let kept = |status| WebhookState {
            webhook_id: project.webhook_id.clone(),
            webhook_url: project.webhook_url.clone(),
            status: Some(status),
        };
        let platform = match self.configs.get(project.platform_config_id).await {
            // The App's one webhook is set in its settings, out of reviewd's sight.
            Ok(config) if config.auth_type == AuthType::App => return kept_as_is(project),
            Ok(config) => match platform_for(self.clients.as_ref(), &config) {
                Ok(p) => p,
                Err(_) => return kept(WebhookStatus::Error),
            },
            Err(_) => return kept(WebhookStatus::Unknown),
        };
        let receiver = self.receiver_url(project.platform_type);
        match platform.list_webhooks(&project.platform_ref()).await {
            Ok(hooks) => {
                let ours = hooks.into_iter().find(|h| {
                    project.webhook_id.as_deref() == Some(h.id.as_str())
                        || project.webhook_url.as_deref() == Some(h.url.as_str())
                        || h.url == receiver
                });
                match ours {
                    Some(h) => WebhookState {
                        webhook_id: Some(h.id),
                        webhook_url: Some(h.url),
                        status: Some(WebhookStatus::Active),
                    },
                    None if project.webhook_id.is_some() => kept(WebhookStatus::Inactive),
                    None => WebhookState::default(),
                }
            }
            Err(
                PlatformError::Unavailable(_)
                | PlatformError::RateLimited { .. }
                | PlatformError::InvalidResponse(_),
            ) => kept(WebhookStatus::Unknown),
            Err(_) => kept(WebhookStatus::Error),
        }
    }

    async fn project_and_config(
        &self,
        project_id: ProjectId,
    ) -> Result<(Project, crate::model::PlatformConfig), ServiceError> {
        let project = self
            .projects
            .get(project_id)
            .await
            .map_err(|e: RepoError| ServiceError::from_repo(e, "project"))?;
        let config = self
            .configs
            .get(project.platform_config_id)
            .await
            .map_err(|e| ServiceError::from_repo(e, "platform config"))?;
        Ok((project, config))
    }
}
