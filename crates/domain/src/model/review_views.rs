//! Read models of reviews, as the API lists them.

use super::ids::ProjectId;
use super::ids::{ReviewFileId, ReviewId};
use crate::model::diff::{ChangeType, Suggestion};
use crate::model::grade::{Rating, Severity};
use crate::model::review::{AiCallStatus, FileStatus, ReviewStatus};
use crate::model::task::TriggeredBy;
use crate::review::feedback::{FeedbackType, TrackingStatus};
use chrono::{DateTime, Utc};
use uuid::Uuid;

#[derive(Debug, Clone, PartialEq)]
pub struct ReviewListItem {
    pub id: ReviewId,
    pub project_id: ProjectId,
    pub project_name: String,
    pub mr_iid: i64,
    pub mr_title: String,
    pub mr_url: String,
    pub status: ReviewStatus,
    pub ai_provider: String,
    pub ai_model: String,
    pub comment_count: i32,
    pub triggered_by: TriggeredBy,
    pub overall_rating: Option<Rating>,
    pub summary: Option<String>,
    pub created_at: DateTime<Utc>,
    pub completed_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ReviewDetail {
    pub item: ReviewListItem,
    pub base_commit_sha: Option<String>,
    pub head_commit_sha: String,
    pub start_commit_sha: Option<String>,
    pub round_number: i32,
    pub applied_rule_ids: Vec<String>,
    pub reviewed_lines: i32,
    pub score: Option<i32>,
    pub source_branch: String,
    pub target_branch: String,
    pub author_username: Option<String>,
    pub error_message: Option<String>,
    pub started_at: Option<DateTime<Utc>>,
    /// USD: the sum of its AI calls' costs; `None` when none of them had a price.
    pub cost_usd: Option<f64>,
    /// The tokens of all its AI calls.
    pub tokens: TokenTotals,
}

/// Tokens of a review's AI calls, summed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenTotals {
    pub prompt: i64,
    pub completion: i64,
    pub total: i64,
    /// Of the prompt tokens, those the provider served from its prompt cache.
    pub cached: i64,
}

/// Aggregates of the filtered set of the review list.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReviewStats {
    pub total: u64,
    pub pending: u64,
    pub completed: u64,
    pub failed: u64,
    pub total_comments: u64,
    pub average_score: Option<f64>,
    /// USD spent on the AI calls of the filtered reviews (priced calls only).
    pub total_cost_usd: f64,
    /// The same spending per UTC day of the calls, over the last [`COST_DAYS`] days
    /// (today included), oldest first; days without a priced call are left out.
    pub cost_by_day: Vec<DayCost>,
}

/// How many UTC calendar days, today included, [`ReviewStats::cost_by_day`] spans:
/// a month's chart, whatever the list's date filters.
pub const COST_DAYS: u32 = 30;

/// USD spent on priced AI calls made on one UTC day.
#[derive(Debug, Clone, PartialEq)]
pub struct DayCost {
    pub date: chrono::NaiveDate,
    pub cost_usd: f64,
}

#[derive(Debug, Clone, Default)]
pub struct ReviewFilter {
    pub project_id: Option<ProjectId>,
    /// Case-insensitive part of the project's name (the dashboard's search box).
    pub project_search: Option<String>,
    pub status: Option<ReviewStatus>,
    pub start_date: Option<DateTime<Utc>>,
    pub end_date: Option<DateTime<Utc>>,
    pub triggered_by: Option<TriggeredBy>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CommentItem {
    pub id: Uuid,
    pub review_id: ReviewId,
    pub file_path: String,
    pub line_number: i32,
    pub severity: Severity,
    pub message: String,
    pub gitlab_discussion_id: Option<String>,
    pub round_number: i32,
    pub posted_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    /// The replacement code posted with it, when one fitted the diff.
    pub suggestion: Option<Suggestion>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FileItem {
    pub id: ReviewFileId,
    pub file_path: String,
    pub old_path: Option<String>,
    pub change_type: ChangeType,
    pub summary: Option<String>,
    pub comment_count: i32,
    pub status: FileStatus,
    pub prompt_summary: Option<String>,
    pub error_message: Option<String>,
    pub attempts: i32,
    pub round_number: i32,
    pub started_at: Option<DateTime<Utc>>,
    pub completed_at: Option<DateTime<Utc>>,
    /// What the file's review was given besides its diff.
    pub context: Option<crate::context::ContextReport>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RoundItem {
    pub id: Uuid,
    pub round_number: i32,
    pub is_differential: bool,
    pub base_sha: Option<String>,
    pub head_sha: String,
    pub file_count: i32,
    pub comment_count: i32,
    pub created_at: DateTime<Utc>,
    pub completed_at: Option<DateTime<Utc>>,
    /// What gathering the round's context cost and found.
    pub context: Option<crate::context::ContextStats>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FeedbackItem {
    pub id: Uuid,
    pub feedback_type: FeedbackType,
    pub tracking_status: TrackingStatus,
    pub username: Option<String>,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AiLogItem {
    pub id: Uuid,
    pub provider: String,
    pub model: String,
    pub status: AiCallStatus,
    pub duration_ms: i64,
    pub prompt_tokens: i32,
    pub completion_tokens: i32,
    pub total_tokens: i32,
    /// Prompt tokens the provider served from its cache.
    pub cached_tokens: i32,
    /// USD; `None` when the configuration had no prices.
    pub cost_usd: Option<f64>,
    pub file_path: Option<String>,
    pub error_message: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// Execution log of the tasks that produced a review.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskLogLine {
    pub task_id: Uuid,
    pub line_no: i32,
    pub message: String,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TemplateItem {
    pub id: Uuid,
    pub name: String,
    pub description: Option<String>,
    pub is_default: bool,
    pub project_id: Option<ProjectId>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RuleItem {
    pub id: Uuid,
    pub rule_name: String,
    pub enabled: bool,
    pub file_type_patterns: Vec<String>,
    pub file_path_patterns: Vec<String>,
    pub priority: i32,
    pub project_id: Option<ProjectId>,
}

/// Reviews created on one UTC day, by outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayCount {
    pub day: chrono::NaiveDate,
    pub total: u64,
    pub completed: u64,
    pub failed: u64,
}

/// A review that failed, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedReview {
    pub id: ReviewId,
    pub project_name: String,
    pub mr_iid: i64,
    pub mr_title: String,
    pub error_message: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// What the dashboard's overview charts: reviews per day, ratings, the last failures.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReviewActivity {
    /// Days with at least one review, oldest first.
    pub days: Vec<DayCount>,
    /// `(rating letter, count)` of completed reviews, best first.
    pub ratings: Vec<(String, u64)>,
    /// The newest failures, newest first.
    pub recent_failures: Vec<FailedReview>,
}

/// A round of a review whose comments readers judged: what `reviewd export-eval`
/// turns into an eval case (its base and head, and each judged comment).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgedRound {
    pub review_id: ReviewId,
    pub mr_iid: i64,
    pub mr_title: String,
    pub base_sha: Option<String>,
    /// The head the round reviewed: the comments' lines are its lines.
    pub head_sha: String,
    pub round_number: i32,
    pub comments: Vec<JudgedComment>,
}

/// A comment with readers' latest verdict on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgedComment {
    pub file_path: String,
    pub line: i32,
    pub severity: Severity,
    pub message: String,
    /// Accepted, implemented or rejected (never pending).
    pub verdict: TrackingStatus,
}
