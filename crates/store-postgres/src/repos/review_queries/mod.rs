//! The dashboard's read side of reviews: the filtered list and its stats (`list`),
//! the activity chart (`activity`), one review's detail and what hangs off it
//! (`detail`), and the template and rule lists (`catalog`). The port's methods are
//! here, each handing over to the submodule that does its job.

mod activity;
mod catalog;
pub(super) mod days;
mod detail;
mod judged;
mod list;
mod rollup;

use crate::PgPool;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::ReviewId;
use reviewd_domain::model::review::AiCallStatus;
use reviewd_domain::model::review_views::{
    AiLogItem, CommentItem, FeedbackItem, FileItem, JudgedRound, ReviewActivity, ReviewDetail,
    ReviewFilter, ReviewListItem, ReviewStats, RoundItem, RuleItem, TaskLogLine, TemplateItem,
};
use reviewd_domain::ports::{RepoError, ReviewQueries};
use reviewd_domain::{Page, PageRequest};

pub struct PgReviewQueries {
    pool: PgPool,
}

impl PgReviewQueries {
    #[must_use]
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

#[async_trait]
impl ReviewQueries for PgReviewQueries {
    async fn list(
        &self,
        f: &ReviewFilter,
        page: PageRequest,
    ) -> Result<(Page<ReviewListItem>, ReviewStats), RepoError> {
        list::list(&self.pool, f, page).await
    }

    async fn activity(
        &self,
        since: DateTime<Utc>,
        failures: u32,
    ) -> Result<ReviewActivity, RepoError> {
        activity::activity(&self.pool, since, failures).await
    }

    async fn detail(&self, id: ReviewId) -> Result<ReviewDetail, RepoError> {
        detail::detail(&self.pool, id.0).await
    }

    async fn comments(
        &self,
        id: ReviewId,
        file_path: Option<&str>,
        severity: Option<&str>,
        limit: u32,
        offset: u64,
    ) -> Result<(Vec<CommentItem>, u64), RepoError> {
        detail::comments(&self.pool, id.0, file_path, severity, limit, offset).await
    }

    async fn files(&self, id: ReviewId) -> Result<Vec<FileItem>, RepoError> {
        detail::files(&self.pool, id.0).await
    }

    async fn rounds(&self, id: ReviewId) -> Result<Vec<RoundItem>, RepoError> {
        detail::rounds(&self.pool, id.0).await
    }

    async fn feedbacks(&self, id: ReviewId) -> Result<Vec<FeedbackItem>, RepoError> {
        detail::feedbacks(&self.pool, id.0).await
    }

    async fn ai_logs(
        &self,
        id: ReviewId,
        provider: Option<&str>,
        status: Option<AiCallStatus>,
        limit: u32,
        offset: u64,
    ) -> Result<(Vec<AiLogItem>, u64), RepoError> {
        detail::ai_logs(&self.pool, id.0, provider, status, limit, offset).await
    }

    async fn task_logs(&self, id: ReviewId) -> Result<Vec<TaskLogLine>, RepoError> {
        detail::task_logs(&self.pool, id.0).await
    }

    async fn templates(&self) -> Result<Vec<TemplateItem>, RepoError> {
        catalog::templates(&self.pool).await
    }

    async fn rules(&self) -> Result<Vec<RuleItem>, RepoError> {
        catalog::rules(&self.pool).await
    }

    async fn judged_rounds(
        &self,
        project_id: ProjectId,
        limit: u32,
    ) -> Result<Vec<JudgedRound>, RepoError> {
        judged::judged_rounds(&self.pool, project_id.0, limit).await
    }
}
