//! Analyzers' results uploaded from CI (SARIF), kept per project and commit until
//! the round of that head reads them.

use super::RepoError;
use crate::model::review::ReviewStatus;
use crate::model::{ProjectId, ReviewId};
use crate::review::tools::ToolFinding;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// An upload as stored: its findings already read and normalised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewUpload {
    pub project_id: ProjectId,
    pub commit_sha: String,
    /// The tools the file names (SARIF runs' drivers).
    pub tools: Vec<String>,
    pub findings: Vec<ToolFinding>,
}

/// A stored upload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upload {
    pub id: Uuid,
    pub project_id: ProjectId,
    pub commit_sha: String,
    pub tools: Vec<String>,
    pub finding_count: usize,
    pub created_at: DateTime<Utc>,
}

#[async_trait]
pub trait AnalysisRepository: Send + Sync {
    /// Keeps an upload's findings for its project and commit.
    async fn add_upload(&self, upload: NewUpload) -> Result<Upload, RepoError>;

    /// Every finding uploaded for `commit_sha` of the project, oldest upload first.
    async fn findings_for(
        &self,
        project_id: ProjectId,
        commit_sha: &str,
    ) -> Result<Vec<ToolFinding>, RepoError>;

    /// The reviews whose current head is `commit_sha` (where an upload for it
    /// lands), with their status, newest first.
    async fn reviews_at(
        &self,
        project_id: ProjectId,
        commit_sha: &str,
    ) -> Result<Vec<(ReviewId, ReviewStatus)>, RepoError>;

    /// The project's latest `limit` uploads, newest first (its page lists them).
    async fn recent_uploads(
        &self,
        project_id: ProjectId,
        limit: u32,
    ) -> Result<Vec<Upload>, RepoError>;
}
