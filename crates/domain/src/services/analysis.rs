//! Analyzers' results uploaded from CI (`POST /api/projects/{id}/sarif`): kept for
//! their commit, read by the round of that head whether it begins after the
//! upload or has begun before it.

use super::ServiceError;
use super::error::FieldError;
use crate::model::ProjectId;
use crate::model::ReviewId;
use crate::model::review::ReviewStatus;
use crate::ports::{AnalysisRepository, NewUpload, ProjectRepository, Upload};
use crate::review::tools::ToolFinding;
use std::sync::Arc;

/// Where an upload lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Landing {
    /// No review is at that commit yet: the round that reviews it reads the
    /// upload when it begins.
    NextRound,
    /// A round of that head is under way: its files not yet reviewed read it.
    RoundUnderWay(ReviewId),
    /// The round of that head has concluded: its files with findings on their
    /// changed lines are to be reviewed again with them.
    ReviewAgain(ReviewId),
}

pub struct AnalysisService {
    store: Arc<dyn AnalysisRepository>,
    projects: Arc<dyn ProjectRepository>,
}

impl AnalysisService {
    #[must_use]
    pub fn new(store: Arc<dyn AnalysisRepository>, projects: Arc<dyn ProjectRepository>) -> Self {
        Self { store, projects }
    }

    /// Keeps `findings` (already read from the SARIF log) for `commit_sha` of the
    /// project.
    ///
    /// # Errors
    /// `NotFound` for an unknown project; `Invalid` for a commit that is not a hex
    /// object id; store failures.
    pub async fn upload(
        &self,
        project_id: ProjectId,
        commit_sha: &str,
        tools: Vec<String>,
        findings: Vec<ToolFinding>,
    ) -> Result<(Upload, Landing), ServiceError> {
        let commit = commit_sha.trim().to_ascii_lowercase();
        // Rounds look uploads up by the full id: a short one would never be read.
        if ![40, 64].contains(&commit.len()) || !commit.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(ServiceError::Invalid(vec![FieldError::new(
                "commitSha",
                "must be the commit's full hex id",
            )]));
        }
        self.projects
            .get(project_id)
            .await
            .map_err(|e| ServiceError::from_repo(e, "project"))?;
        let upload = self
            .store
            .add_upload(NewUpload {
                project_id,
                commit_sha: commit.clone(),
                tools,
                findings,
            })
            .await
            .map_err(|e| ServiceError::from_repo(e, "project"))?;
        let landing = self.landing(project_id, &commit).await?;
        tracing::info!(project.id = %project_id, commit, findings = upload.finding_count, landing = ?landing, "analysis.uploaded");
        Ok((upload, landing))
    }

    /// Where an upload for `commit_sha` lands now.
    ///
    /// # Errors
    /// Store failures.
    pub async fn landing(
        &self,
        project_id: ProjectId,
        commit_sha: &str,
    ) -> Result<Landing, ServiceError> {
        Ok(
            match self.store.reviews_at(project_id, commit_sha).await?.first() {
                None => Landing::NextRound,
                Some((id, ReviewStatus::Pending)) => Landing::RoundUnderWay(*id),
                Some((id, ReviewStatus::Completed)) => Landing::ReviewAgain(*id),
                // A failed review is redone by a later attempt or push, which reads it.
                Some((_, ReviewStatus::Failed)) => Landing::NextRound,
            },
        )
    }

    /// The project's latest uploads, newest first.
    ///
    /// # Errors
    /// Store failures.
    pub async fn recent(
        &self,
        project_id: ProjectId,
        limit: u32,
    ) -> Result<Vec<Upload>, ServiceError> {
        Ok(self.store.recent_uploads(project_id, limit).await?)
    }
}
