//! Analyzers' results uploaded from CI: one row per upload, its findings kept as
//! JSON (already normalised and capped by the SARIF reader).

use super::conn;
use crate::error::map_diesel_error;
use crate::pool::PgPool;
use crate::schema::{analysis_uploads, reviews};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use reviewd_domain::model::review::ReviewStatus;
use reviewd_domain::model::{ProjectId, ReviewId};
use reviewd_domain::ports::{AnalysisRepository, NewUpload, RepoError, Upload};
use reviewd_domain::review::tools::ToolFinding;
use uuid::Uuid;

pub struct PgAnalysisRepository {
    pool: PgPool,
}

impl PgAnalysisRepository {
    #[must_use]
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = analysis_uploads)]
struct UploadRow {
    id: Uuid,
    project_id: Uuid,
    commit_sha: String,
    tools: serde_json::Value,
    finding_count: i32,
    created_at: DateTime<Utc>,
}

impl From<UploadRow> for Upload {
    fn from(r: UploadRow) -> Self {
        Upload {
            id: r.id,
            project_id: ProjectId(r.project_id),
            commit_sha: r.commit_sha,
            tools: serde_json::from_value(r.tools).unwrap_or_default(),
            finding_count: usize::try_from(r.finding_count).unwrap_or(0),
            created_at: r.created_at,
        }
    }
}

fn corrupt(e: serde_json::Error) -> RepoError {
    RepoError::Other(Box::new(e))
}

#[async_trait]
impl AnalysisRepository for PgAnalysisRepository {
    async fn add_upload(&self, upload: NewUpload) -> Result<Upload, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let findings = serde_json::to_value(&upload.findings).map_err(corrupt)?;
        let tools = serde_json::to_value(&upload.tools).map_err(corrupt)?;
        diesel::insert_into(analysis_uploads::table)
            .values((
                analysis_uploads::id.eq(Uuid::now_v7()),
                analysis_uploads::project_id.eq(upload.project_id.0),
                analysis_uploads::commit_sha.eq(&upload.commit_sha),
                analysis_uploads::tools.eq(tools),
                analysis_uploads::findings.eq(findings),
                analysis_uploads::finding_count
                    .eq(i32::try_from(upload.findings.len()).unwrap_or(i32::MAX)),
            ))
            .returning(UploadRow::as_returning())
            .get_result(&mut conn)
            .await
            .map(Upload::from)
            .map_err(map_diesel_error)
    }

    async fn findings_for(
        &self,
        project_id: ProjectId,
        commit_sha: &str,
    ) -> Result<Vec<ToolFinding>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let stored: Vec<serde_json::Value> = analysis_uploads::table
            .filter(analysis_uploads::project_id.eq(project_id.0))
            .filter(analysis_uploads::commit_sha.eq(commit_sha))
            .order((
                analysis_uploads::created_at.asc(),
                analysis_uploads::id.asc(),
            ))
            .select(analysis_uploads::findings)
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let mut found = Vec::new();
        for value in stored {
            let findings: Vec<ToolFinding> = serde_json::from_value(value).map_err(corrupt)?;
            found.extend(findings);
        }
        Ok(found)
    }

    async fn reviews_at(
        &self,
        project_id: ProjectId,
        commit_sha: &str,
    ) -> Result<Vec<(ReviewId, ReviewStatus)>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let rows: Vec<(Uuid, String)> = reviews::table
            .filter(reviews::project_id.eq(project_id.0))
            .filter(reviews::head_commit_sha.eq(commit_sha))
            .order((reviews::created_at.desc(), reviews::id.desc()))
            .select((reviews::id, reviews::status))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter()
            .map(|(id, status)| {
                let status = status
                    .parse::<ReviewStatus>()
                    .map_err(|e| RepoError::Other(e.into()))?;
                Ok((ReviewId(id), status))
            })
            .collect()
    }

    async fn recent_uploads(
        &self,
        project_id: ProjectId,
        limit: u32,
    ) -> Result<Vec<Upload>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let rows: Vec<UploadRow> = analysis_uploads::table
            .filter(analysis_uploads::project_id.eq(project_id.0))
            .order((
                analysis_uploads::created_at.desc(),
                analysis_uploads::id.desc(),
            ))
            .limit(i64::from(limit))
            .select(UploadRow::as_select())
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(rows.into_iter().map(Upload::from).collect())
    }
}
