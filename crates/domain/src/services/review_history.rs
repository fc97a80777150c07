//! Reading reviews: the history list, a review's detail and everything recorded
//! about it. Sub-resources of an unknown review are a 404, not an empty list.

use super::ServiceError;
use crate::model::ReviewId;
use crate::model::review::AiCallStatus;
use crate::model::review_views::{
    AiLogItem, CommentItem, FeedbackItem, FileItem, ReviewActivity, ReviewDetail, ReviewFilter,
    ReviewListItem, ReviewStats, RoundItem, RuleItem, TaskLogLine, TemplateItem,
};
use crate::ports::ReviewQueries;
use crate::{Page, PageRequest};
use std::sync::Arc;

pub struct ReviewHistory {
    queries: Arc<dyn ReviewQueries>,
}

impl ReviewHistory {
    pub fn new(queries: Arc<dyn ReviewQueries>) -> Self {
        Self { queries }
    }

    /// # Errors
    /// Store failures.
    pub async fn list(
        &self,
        filter: &ReviewFilter,
        page: PageRequest,
    ) -> Result<(Page<ReviewListItem>, ReviewStats), ServiceError> {
        Ok(self.queries.list(filter, page).await?)
    }

    /// Activity of the last `days` days (today included) for the overview.
    ///
    /// # Errors
    /// Store failures.
    pub async fn activity(&self, days: u32, failures: u32) -> Result<ReviewActivity, ServiceError> {
        let today = chrono::Utc::now().date_naive();
        let first = today - chrono::Days::new(u64::from(days.max(1) - 1));
        let since = first.and_time(chrono::NaiveTime::MIN).and_utc();
        Ok(self.queries.activity(since, failures).await?)
    }

    /// # Errors
    /// `NotFound` for an unknown review.
    pub async fn detail(&self, id: ReviewId) -> Result<ReviewDetail, ServiceError> {
        self.queries
            .detail(id)
            .await
            .map_err(|e| ServiceError::from_repo(e, "review"))
    }

    /// # Errors
    /// `NotFound` for an unknown review.
    pub async fn comments(
        &self,
        id: ReviewId,
        file_path: Option<&str>,
        severity: Option<&str>,
        limit: u32,
        offset: u64,
    ) -> Result<(Vec<CommentItem>, u64), ServiceError> {
        self.detail(id).await?;
        Ok(self
            .queries
            .comments(id, file_path, severity, limit, offset)
            .await?)
    }

    /// # Errors
    /// `NotFound` for an unknown review.
    pub async fn files(&self, id: ReviewId) -> Result<Vec<FileItem>, ServiceError> {
        self.detail(id).await?;
        Ok(self.queries.files(id).await?)
    }

    /// # Errors
    /// `NotFound` for an unknown review.
    pub async fn rounds(&self, id: ReviewId) -> Result<Vec<RoundItem>, ServiceError> {
        self.detail(id).await?;
        Ok(self.queries.rounds(id).await?)
    }

    /// # Errors
    /// `NotFound` for an unknown review.
    pub async fn feedbacks(&self, id: ReviewId) -> Result<Vec<FeedbackItem>, ServiceError> {
        self.detail(id).await?;
        Ok(self.queries.feedbacks(id).await?)
    }

    /// # Errors
    /// `NotFound` for an unknown review.
    pub async fn ai_logs(
        &self,
        id: ReviewId,
        provider: Option<&str>,
        status: Option<AiCallStatus>,
        limit: u32,
        offset: u64,
    ) -> Result<(Vec<AiLogItem>, u64), ServiceError> {
        self.detail(id).await?;
        Ok(self
            .queries
            .ai_logs(id, provider, status, limit, offset)
            .await?)
    }

    /// # Errors
    /// `NotFound` for an unknown review.
    pub async fn task_logs(&self, id: ReviewId) -> Result<Vec<TaskLogLine>, ServiceError> {
        self.detail(id).await?;
        Ok(self.queries.task_logs(id).await?)
    }

    /// # Errors
    /// Store failures.
    pub async fn templates(&self) -> Result<Vec<TemplateItem>, ServiceError> {
        Ok(self.queries.templates().await?)
    }

    /// # Errors
    /// Store failures.
    pub async fn rules(&self) -> Result<Vec<RuleItem>, ServiceError> {
        Ok(self.queries.rules().await?)
    }
}
