use super::RepoError;
use crate::model::ProjectId;
use crate::model::ReviewId;
use crate::model::review::AiCallStatus;
use crate::model::review_views::{
    AiLogItem, CommentItem, FeedbackItem, FileItem, JudgedRound, ReviewActivity, ReviewDetail,
    ReviewFilter, ReviewListItem, ReviewStats, RoundItem, RuleItem, TaskLogLine, TemplateItem,
};
use crate::{Page, PageRequest};
use async_trait::async_trait;

/// The read side of reviews, for the API.
#[async_trait]
pub trait ReviewQueries: Send + Sync {
    /// Reviews newest first, and aggregates of the whole filtered set.
    ///
    /// # Errors
    /// Only store failures.
    async fn list(
        &self,
        filter: &ReviewFilter,
        page: PageRequest,
    ) -> Result<(Page<ReviewListItem>, ReviewStats), RepoError>;

    /// Reviews created since `since`: counts per UTC day and the ratings of completed
    /// ones; and the `failures` newest failures of any date, with their reason.
    ///
    /// # Errors
    /// Only store failures.
    async fn activity(
        &self,
        since: chrono::DateTime<chrono::Utc>,
        failures: u32,
    ) -> Result<ReviewActivity, RepoError>;

    /// # Errors
    /// `NotFound` for an unknown id.
    async fn detail(&self, id: ReviewId) -> Result<ReviewDetail, RepoError>;

    /// Comments of every round, by file then line; `total` of the filtered set.
    ///
    /// # Errors
    /// Only store failures.
    async fn comments(
        &self,
        id: ReviewId,
        file_path: Option<&str>,
        severity: Option<&str>,
        limit: u32,
        offset: u64,
    ) -> Result<(Vec<CommentItem>, u64), RepoError>;

    /// Files of the latest round.
    ///
    /// # Errors
    /// Only store failures.
    async fn files(&self, id: ReviewId) -> Result<Vec<FileItem>, RepoError>;

    /// # Errors
    /// Only store failures.
    async fn rounds(&self, id: ReviewId) -> Result<Vec<RoundItem>, RepoError>;

    /// # Errors
    /// Only store failures.
    async fn feedbacks(&self, id: ReviewId) -> Result<Vec<FeedbackItem>, RepoError>;

    /// # Errors
    /// Only store failures.
    async fn ai_logs(
        &self,
        id: ReviewId,
        provider: Option<&str>,
        status: Option<AiCallStatus>,
        limit: u32,
        offset: u64,
    ) -> Result<(Vec<AiLogItem>, u64), RepoError>;

    /// Log lines of the tasks of this review.
    ///
    /// # Errors
    /// Only store failures.
    async fn task_logs(&self, id: ReviewId) -> Result<Vec<TaskLogLine>, RepoError>;

    /// Review templates, global default first.
    ///
    /// # Errors
    /// Only store failures.
    async fn templates(&self) -> Result<Vec<TemplateItem>, RepoError>;

    /// Review rules, highest priority first.
    ///
    /// # Errors
    /// Only store failures.
    async fn rules(&self) -> Result<Vec<RuleItem>, RepoError>;

    /// The rounds of `project_id`'s reviews that have comments readers judged
    /// (accepted, implemented or rejected; a comment's latest verdict), newest
    /// first, at most `limit`; each with those comments by path and line.
    ///
    /// # Errors
    /// Only store failures.
    async fn judged_rounds(
        &self,
        project_id: ProjectId,
        limit: u32,
    ) -> Result<Vec<JudgedRound>, RepoError>;
}
