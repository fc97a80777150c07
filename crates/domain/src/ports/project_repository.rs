use super::RepoError;
use crate::model::ProjectId;
use crate::model::{
    PipelineEntry, PipelineFilter, PlatformProject, Project, ProjectFilter, ProjectSettingsChanges,
    ProjectStats, ReviewSummary, WebhookState,
};
use crate::{Page, PageRequest};
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use uuid::Uuid;

/// Storage of synced projects and the reads that list their activity.
#[async_trait]
pub trait ProjectRepository: Send + Sync {
    /// Inserts the platform project, or refreshes its platform fields (name, path,
    /// URL, branch, visibility) when the config already has it; settings are kept.
    ///
    /// # Errors
    /// `NotFound` when the config is gone.
    async fn upsert_synced(
        &self,
        platform_config_id: Uuid,
        project: &PlatformProject,
    ) -> Result<Project, RepoError>;

    /// Projects synced with this platform project id (one per config that sees it).
    ///
    /// # Errors
    /// Only store failures.
    async fn find_by_platform(
        &self,
        platform_type: crate::model::PlatformType,
        platform_project_id: &str,
    ) -> Result<Vec<Project>, RepoError>;

    /// # Errors
    /// Only store failures.
    async fn list_all(&self) -> Result<Vec<Project>, RepoError>;

    /// # Errors
    /// Only store failures.
    async fn list(
        &self,
        filter: &ProjectFilter,
        page: PageRequest,
    ) -> Result<Page<Project>, RepoError>;

    /// # Errors
    /// `NotFound` for an unknown id.
    async fn get(&self, id: ProjectId) -> Result<Project, RepoError>;

    /// # Errors
    /// `NotFound` for an unknown id.
    async fn update_settings(
        &self,
        id: ProjectId,
        changes: ProjectSettingsChanges,
    ) -> Result<Project, RepoError>;

    /// Stores the webhook metadata and when it was checked.
    ///
    /// # Errors
    /// `NotFound` for an unknown id.
    async fn set_webhook(&self, id: ProjectId, state: WebhookState) -> Result<Project, RepoError>;

    /// # Errors
    /// `NotFound` for an unknown id.
    async fn delete(&self, id: ProjectId) -> Result<(), RepoError>;

    /// Deletes the projects that exist among `ids`; returns the ids deleted.
    ///
    /// # Errors
    /// Only store failures.
    async fn delete_many(&self, ids: &[ProjectId]) -> Result<Vec<ProjectId>, RepoError>;

    /// # Errors
    /// Only store failures.
    async fn stats(&self) -> Result<ProjectStats, RepoError>;

    /// USD the project's priced AI calls made at or after `since` cost (calls of
    /// deleted reviews are no longer the project's).
    ///
    /// # Errors
    /// Only store failures.
    async fn cost_since(&self, id: ProjectId, since: DateTime<Utc>) -> Result<f64, RepoError>;

    /// Records that the project's budget for the month starting on `month` was
    /// announced. `true` the first time for that month, `false` after, so that
    /// concurrent webhooks announce it once.
    ///
    /// # Errors
    /// `NotFound` for an unknown id.
    async fn claim_budget_alert(&self, id: ProjectId, month: NaiveDate) -> Result<bool, RepoError>;

    /// Records that MR `mr_iid` is being told its project's budget for `month` is
    /// spent: `true` for the first caller (who posts the note), `false` after.
    ///
    /// # Errors
    /// An unknown project; store failures.
    async fn claim_budget_note(
        &self,
        id: ProjectId,
        mr_iid: i64,
        month: NaiveDate,
    ) -> Result<bool, RepoError>;

    /// Gives a claim back (the note could not be posted), so a later webhook tries.
    ///
    /// # Errors
    /// Only store failures.
    async fn release_budget_note(
        &self,
        id: ProjectId,
        mr_iid: i64,
        month: NaiveDate,
    ) -> Result<(), RepoError>;

    /// The project's latest reviews, newest first.
    ///
    /// # Errors
    /// Only store failures.
    async fn recent_reviews(
        &self,
        id: ProjectId,
        limit: u32,
    ) -> Result<Vec<ReviewSummary>, RepoError>;

    /// Review tasks matching `filter` (a project's, a runner's), newest first.
    ///
    /// # Errors
    /// Only store failures.
    async fn pipelines(
        &self,
        filter: &PipelineFilter,
        page: PageRequest,
    ) -> Result<Page<PipelineEntry>, RepoError>;
}
