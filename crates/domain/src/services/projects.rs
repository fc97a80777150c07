//! Projects: syncing them from their platform, listing them, their review settings
//! and the live views of their platform project, members and merge requests.

use super::ServiceError;
use super::platform_access::platform_for;
use crate::model::ProjectId;
use crate::model::{
    GlobalSettings, MergeRequest, MrState, PipelineEntry, PipelineFilter, PlatformPage,
    PlatformProject, PlatformUser, Project, ProjectFilter, ProjectSettingsChanges, ProjectStats,
    ReviewSummary,
};
use crate::ports::{
    HostingPlatform, PlatformClients, PlatformConfigRepository, ProjectRepository, RepoError,
    SettingsRepository,
};
use crate::review::gate::GatePolicy;
use crate::{Page, PageRequest};
use std::sync::Arc;
use uuid::Uuid;

/// One project a sync could not store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncFailure {
    pub platform_project_id: String,
    pub full_path: String,
    pub error: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncReport {
    pub synced: usize,
    pub total: usize,
    pub errors: Vec<SyncFailure>,
    /// The platform ids of every project the listing returned.
    pub reached: Vec<String>,
}

/// A project's settings with the global values it inherits filled in.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedProjectConfig {
    pub project_id: ProjectId,
    pub enabled: bool,
    pub auto_review: bool,
    pub auto_review_inherited: bool,
    pub file_ignore_patterns: Vec<String>,
    pub file_ignore_patterns_inherited: bool,
    /// The project's AI configuration, else the stored default; `None` means the
    /// `PROVIDERA_*` environment configuration.
    pub ai_config_id: Option<Uuid>,
    pub ai_config_inherited: bool,
    pub send_to_platform: bool,
    pub default_reviewer_ids: Vec<String>,
    pub auto_assign_author: bool,
    pub template_id: Option<Uuid>,
    pub review_commands: Vec<String>,
    /// USD per calendar month (UTC) before automatic reviews stop; `None` for no limit.
    pub monthly_budget_usd: Option<f64>,
    pub suppress_rejected: bool,
    /// One polite refusal per MR for outsiders who speak to reviewd, or silence.
    pub refuse_outsiders: bool,
    /// The project's merge gate (a repository's `.reviewd.yml` may change it).
    pub gate: GatePolicy,
    /// The project's context budget; `None` inherits the server's.
    pub context_budget_tokens: Option<u32>,
}

/// A project's recent activity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    pub recent_reviews: Vec<ReviewSummary>,
    pub recent_tasks: Vec<PipelineEntry>,
}

pub struct ProjectService {
    projects: Arc<dyn ProjectRepository>,
    configs: Arc<dyn PlatformConfigRepository>,
    settings: Arc<dyn SettingsRepository>,
    clients: Arc<dyn PlatformClients>,
}

fn project_not_found(e: RepoError) -> ServiceError {
    ServiceError::from_repo(e, "project")
}

/// Longest accepted glob pattern; longer ones are surely a mistake.
const MAX_PATTERN_LEN: usize = 500;
/// The largest monthly budget accepted (the store's check says the same): past it a
/// typo, not a budget.
pub const MAX_MONTHLY_BUDGET_USD: f64 = 1_000_000_000.0;

impl ProjectService {
    pub fn new(
        projects: Arc<dyn ProjectRepository>,
        configs: Arc<dyn PlatformConfigRepository>,
        settings: Arc<dyn SettingsRepository>,
        clients: Arc<dyn PlatformClients>,
    ) -> Self {
        Self {
            projects,
            configs,
            settings,
            clients,
        }
    }

    /// Fetches every project of the config from its platform and upserts each one:
    /// new ones are added, known ones refreshed (their settings kept). A project that
    /// cannot be stored is reported in `errors`; the others still are.
    ///
    /// # Errors
    /// `NotFound` for an unknown config; platform failures of the listing itself.
    pub async fn sync(&self, platform_config_id: Uuid) -> Result<SyncReport, ServiceError> {
        let config = self
            .configs
            .get(platform_config_id)
            .await
            .map_err(|e| ServiceError::from_repo(e, "platform config"))?;
        let platform = platform_for(self.clients.as_ref(), &config)?;
        let remote = platform.list_projects().await?;
        let mut report = SyncReport {
            synced: 0,
            total: remote.len(),
            errors: Vec::new(),
            reached: remote.iter().map(|p| p.id.clone()).collect(),
        };
        for project in &remote {
            match self
                .projects
                .upsert_synced(platform_config_id, project)
                .await
            {
                Ok(_) => report.synced += 1,
                Err(e) => {
                    tracing::warn!(project.platform_id = %project.id, error = %e, "project.sync_failed");
                    report.errors.push(SyncFailure {
                        platform_project_id: project.id.clone(),
                        full_path: project.full_path.clone(),
                        error: e.to_string(),
                    });
                }
            }
        }
        tracing::info!(platform_config.id = %platform_config_id, synced = report.synced, total = report.total, "projects.synced");
        Ok(report)
    }

    /// # Errors
    /// Store failures.
    pub async fn list_all(&self) -> Result<Vec<Project>, ServiceError> {
        Ok(self.projects.list_all().await?)
    }

    /// # Errors
    /// Store failures.
    pub async fn list(
        &self,
        filter: &ProjectFilter,
        page: PageRequest,
    ) -> Result<Page<Project>, ServiceError> {
        Ok(self.projects.list(filter, page).await?)
    }

    /// # Errors
    /// `NotFound` for an unknown id.
    pub async fn get(&self, id: ProjectId) -> Result<Project, ServiceError> {
        self.projects.get(id).await.map_err(project_not_found)
    }

    /// # Errors
    /// Store failures.
    pub async fn stats(&self) -> Result<ProjectStats, ServiceError> {
        Ok(self.projects.stats().await?)
    }

    /// # Errors
    /// `NotFound`; `Invalid` for an unknown AI configuration or a bad pattern.
    pub async fn update_settings(
        &self,
        id: ProjectId,
        mut changes: ProjectSettingsChanges,
    ) -> Result<Project, ServiceError> {
        self.get(id).await?;
        if let Some(Some(budget)) = &mut changes.monthly_budget_usd {
            // -0 is 0: stored and shown without its sign.
            *budget += 0.0;
        }
        if let Some(Some(ai_config_id)) = changes.ai_config_id
            && !self.settings.ai_config_exists(ai_config_id).await?
        {
            // An id that names nothing is a 404, like an unknown template on a trigger.
            return Err(ServiceError::NotFound("AI configuration"));
        }
        if let Some(Some(patterns)) = &changes.file_ignore_patterns
            && patterns
                .iter()
                .any(|p| p.trim().is_empty() || p.chars().count() > MAX_PATTERN_LEN)
        {
            return Err(ServiceError::invalid(
                "fileIgnorePatterns",
                "patterns must be non-empty and at most 500 characters",
            ));
        }
        if let Some(Some(budget)) = changes.monthly_budget_usd
            && !(budget.is_finite() && (0.0..=MAX_MONTHLY_BUDGET_USD).contains(&budget))
        {
            return Err(ServiceError::invalid(
                "monthlyBudget",
                "a budget is a number of USD from 0 to 1000000000, or null for none",
            ));
        }
        if let Some(Some(budget)) = changes.context_budget_tokens
            && !crate::context::settings::BUDGET_RANGE.contains(&budget)
        {
            return Err(ServiceError::invalid(
                "contextBudgetTokens",
                "a budget is a number of tokens from 0 to 100000, or null to inherit",
            ));
        }
        if let Some(ids) = &changes.default_reviewer_ids
            && ids.iter().any(|i| i.trim().is_empty())
        {
            return Err(ServiceError::invalid(
                "defaultReviewerIds",
                "ids must be non-empty",
            ));
        }
        let project = self
            .projects
            .update_settings(id, changes)
            .await
            .map_err(project_not_found)?;
        tracing::info!(project.id = %id, "project.settings_updated");
        Ok(project)
    }

    /// # Errors
    /// `NotFound` for an unknown id.
    pub async fn resolved_config(
        &self,
        id: ProjectId,
    ) -> Result<ResolvedProjectConfig, ServiceError> {
        let project = self.get(id).await?;
        let global: GlobalSettings = self.settings.global().await?;
        let default_ai = match project.ai_config_id {
            Some(_) => None,
            None => self.settings.default_ai_config_id().await?,
        };
        Ok(ResolvedProjectConfig {
            project_id: project.id,
            enabled: project.enabled,
            auto_review: project.auto_review.unwrap_or(global.auto_review),
            auto_review_inherited: project.auto_review.is_none(),
            file_ignore_patterns: project
                .file_ignore_patterns
                .clone()
                .unwrap_or(global.file_ignore_patterns),
            file_ignore_patterns_inherited: project.file_ignore_patterns.is_none(),
            ai_config_id: project.ai_config_id.or(default_ai),
            ai_config_inherited: project.ai_config_id.is_none(),
            send_to_platform: project.send_to_platform.unwrap_or(global.send_to_platform),
            default_reviewer_ids: project.default_reviewer_ids,
            auto_assign_author: project.auto_assign_author,
            template_id: project.template_id,
            review_commands: global.review_commands,
            monthly_budget_usd: project.monthly_budget_usd,
            suppress_rejected: project.suppress_rejected,
            refuse_outsiders: project.refuse_outsiders,
            gate: GatePolicy {
                enabled: project.gate_enabled,
                min_rating: project.gate_min_rating,
                ..GatePolicy::default()
            },
            context_budget_tokens: project.context_budget_tokens,
        })
    }

    /// # Errors
    /// `NotFound` for an unknown id.
    pub async fn workspace(&self, id: ProjectId) -> Result<Workspace, ServiceError> {
        self.get(id).await?;
        let recent_reviews = self.projects.recent_reviews(id, 10).await?;
        let recent_tasks = self
            .projects
            .pipelines(
                &PipelineFilter {
                    project_id: Some(id),
                    ..PipelineFilter::default()
                },
                PageRequest::new(1, 10, 10),
            )
            .await?
            .items;
        Ok(Workspace {
            recent_reviews,
            recent_tasks,
        })
    }

    /// # Errors
    /// `NotFound` for an unknown id.
    pub async fn pipelines(
        &self,
        id: ProjectId,
        filter: &PipelineFilter,
        page: PageRequest,
    ) -> Result<Page<PipelineEntry>, ServiceError> {
        self.get(id).await?;
        let filter = PipelineFilter {
            project_id: Some(id),
            ..filter.clone()
        };
        Ok(self.projects.pipelines(&filter, page).await?)
    }

    /// The review tasks a runner held last, newest first.
    ///
    /// # Errors
    /// Store failures.
    pub async fn runner_pipelines(
        &self,
        runner_id: &str,
        page: PageRequest,
    ) -> Result<Page<PipelineEntry>, ServiceError> {
        let filter = PipelineFilter {
            runner_id: Some(runner_id.to_owned()),
            ..PipelineFilter::default()
        };
        Ok(self.projects.pipelines(&filter, page).await?)
    }

    /// The project and a client of its platform.
    ///
    /// # Errors
    /// `NotFound` for an unknown project or a config gone missing.
    pub async fn with_platform(
        &self,
        id: ProjectId,
    ) -> Result<(Project, Arc<dyn HostingPlatform>), ServiceError> {
        let project = self.get(id).await?;
        let config = self
            .configs
            .get(project.platform_config_id)
            .await
            .map_err(|e| ServiceError::from_repo(e, "platform config"))?;
        let platform = platform_for(self.clients.as_ref(), &config)?;
        Ok((project, platform))
    }

    /// The platform ids of the repositories the config reaches now.
    ///
    /// # Errors
    /// `NotFound` for an unknown config; platform failures.
    pub async fn reachable(
        &self,
        platform_config_id: Uuid,
    ) -> Result<std::collections::HashSet<String>, ServiceError> {
        let config = self
            .configs
            .get(platform_config_id)
            .await
            .map_err(|e| ServiceError::from_repo(e, "platform config"))?;
        let platform = platform_for(self.clients.as_ref(), &config)?;
        Ok(platform
            .list_projects()
            .await?
            .into_iter()
            .map(|p| p.id)
            .collect())
    }

    /// HTTPS clone credentials for the project's repository, from its platform
    /// config's token (`oauth2` on hostA, `x-access-token` on hostB); a GitHub
    /// App mints one for the runner, narrowed to the repository and read-only.
    ///
    /// # Errors
    /// `NotFound` for a vanished config; platform failures of an App's mint.
    pub async fn clone_credentials(
        &self,
        project: &Project,
    ) -> Result<Option<crate::model::runner::CloneCredentials>, ServiceError> {
        let config = self
            .configs
            .get(project.platform_config_id)
            .await
            .map_err(|e| ServiceError::from_repo(e, "platform config"))?;
        if config.auth_type == crate::model::AuthType::App {
            let platform = platform_for(self.clients.as_ref(), &config)?;
            let minted = platform.runner_token(&project.platform_ref()).await?;
            return Ok(minted.map(|t| crate::model::runner::CloneCredentials {
                username: "x-access-token".to_owned(),
                password: t.token.expose().to_owned(),
            }));
        }
        Ok(config
            .access_token
            .map(|token| crate::model::runner::CloneCredentials {
                username: match project.platform_type {
                    crate::model::PlatformType::Gitlab => "oauth2".to_owned(),
                    crate::model::PlatformType::Github => "x-access-token".to_owned(),
                },
                password: token.expose().to_owned(),
            }))
    }

    /// # Errors
    /// `NotFound`; platform failures.
    pub async fn platform_details(&self, id: ProjectId) -> Result<PlatformProject, ServiceError> {
        let (project, platform) = self.with_platform(id).await?;
        Ok(platform.get_project(&project.platform_ref()).await?)
    }

    /// # Errors
    /// `NotFound`; platform failures.
    pub async fn members(
        &self,
        id: ProjectId,
        search: Option<&str>,
        page: PageRequest,
    ) -> Result<PlatformPage<PlatformUser>, ServiceError> {
        let (project, platform) = self.with_platform(id).await?;
        Ok(platform
            .list_members(&project.platform_ref(), search, page.page, page.page_size)
            .await?)
    }

    /// # Errors
    /// `NotFound`; platform failures.
    pub async fn merge_requests(
        &self,
        id: ProjectId,
        state: MrState,
        search: Option<&str>,
        page: PageRequest,
    ) -> Result<PlatformPage<MergeRequest>, ServiceError> {
        let (project, platform) = self.with_platform(id).await?;
        Ok(platform
            .list_merge_requests(
                &project.platform_ref(),
                state,
                search,
                page.page,
                page.page_size,
            )
            .await?)
    }

    /// # Errors
    /// `NotFound` for an unknown id.
    pub async fn delete(&self, id: ProjectId) -> Result<(), ServiceError> {
        self.projects.delete(id).await.map_err(project_not_found)?;
        tracing::info!(project.id = %id, "project.deleted");
        Ok(())
    }

    /// Deletes those of `ids` that exist; returns the ids deleted.
    ///
    /// # Errors
    /// Store failures.
    pub async fn delete_many(&self, ids: &[ProjectId]) -> Result<Vec<ProjectId>, ServiceError> {
        let deleted = self.projects.delete_many(ids).await?;
        tracing::info!(
            requested = ids.len(),
            deleted = deleted.len(),
            "projects.deleted"
        );
        Ok(deleted)
    }
}
