//! Uploaded analyzer results, as the PostgreSQL store keeps them (per project and
//! commit, oldest upload first).

use super::MemoryStore;
use async_trait::async_trait;
use reviewd_domain::model::review::ReviewStatus;
use reviewd_domain::model::{ProjectId, ReviewId};
use reviewd_domain::ports::{AnalysisRepository, NewUpload, RepoError, Upload};
use reviewd_domain::review::tools::ToolFinding;
use uuid::Uuid;

#[async_trait]
impl AnalysisRepository for MemoryStore {
    async fn add_upload(&self, new: NewUpload) -> Result<Upload, RepoError> {
        let now = self.now();
        let mut t = self.tables();
        t.project_exists(new.project_id)?;
        let upload = Upload {
            id: Uuid::now_v7(),
            project_id: new.project_id,
            commit_sha: new.commit_sha,
            tools: new.tools,
            finding_count: new.findings.len(),
            created_at: now,
        };
        t.uploads.push((upload.clone(), new.findings));
        Ok(upload)
    }

    async fn findings_for(
        &self,
        project_id: ProjectId,
        commit_sha: &str,
    ) -> Result<Vec<ToolFinding>, RepoError> {
        let t = self.tables();
        Ok(t.uploads
            .iter()
            .filter(|(u, _)| u.project_id == project_id && u.commit_sha == commit_sha)
            .flat_map(|(_, f)| f.iter().cloned())
            .collect())
    }

    async fn reviews_at(
        &self,
        project_id: ProjectId,
        commit_sha: &str,
    ) -> Result<Vec<(ReviewId, ReviewStatus)>, RepoError> {
        let t = self.tables();
        let mut found: Vec<_> = t
            .reviews
            .iter()
            .filter(|r| {
                r.detail.item.project_id == project_id && r.detail.head_commit_sha == commit_sha
            })
            .map(|r| {
                (
                    r.detail.item.created_at,
                    r.detail.item.id,
                    r.detail.item.status,
                )
            })
            .collect();
        found.sort_by_key(|(at, id, _)| std::cmp::Reverse((*at, *id)));
        Ok(found.into_iter().map(|(_, id, s)| (id, s)).collect())
    }

    async fn recent_uploads(
        &self,
        project_id: ProjectId,
        limit: u32,
    ) -> Result<Vec<Upload>, RepoError> {
        let t = self.tables();
        Ok(t.uploads
            .iter()
            .rev()
            .filter(|(u, _)| u.project_id == project_id)
            .take(limit as usize)
            .map(|(u, _)| u.clone())
            .collect())
    }
}
