//! Rows of the dashboard's review views: the list and its stats, the activity
//! chart, one review's detail and what hangs off it (comments, files, rounds,
//! feedback, model calls, task logs).

use super::count;
use crate::schema::{
    ai_call_logs, review_comments, review_feedbacks, review_files, review_rounds, review_task_logs,
    reviews,
};
use chrono::{DateTime, NaiveDate, Utc};
use diesel::dsl::sql;
use diesel::expression::SqlLiteral;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Date, Double, Nullable};
use reviewd_domain::model::diff::Suggestion;
use reviewd_domain::model::review_views::{
    AiLogItem, CommentItem, DayCost, DayCount, FailedReview, FeedbackItem, FileItem, ReviewDetail,
    ReviewListItem, ReviewStats, RoundItem, TaskLogLine, TokenTotals,
};
use reviewd_domain::ports::RepoError;
use uuid::Uuid;

use crate::error::corrupt;

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = reviews, check_for_backend(diesel::pg::Pg))]
pub(crate) struct ListRow {
    id: Uuid,
    project_id: Uuid,
    project_name: String,
    mr_iid: i64,
    mr_title: String,
    mr_url: String,
    status: String,
    ai_provider: String,
    ai_model: String,
    comment_count: i32,
    triggered_by: String,
    overall_rating: Option<String>,
    summary: Option<String>,
    created_at: DateTime<Utc>,
    completed_at: Option<DateTime<Utc>>,
}

/// Text a column should hold as one of `T`'s names, or a corrupt row naming it.
fn named<T: std::str::FromStr<Err = String>>(text: &str, id: Uuid) -> Result<T, RepoError> {
    text.parse()
        .map_err(|e: String| corrupt(format!("review {id}: {e}")))
}

impl TryFrom<ListRow> for ReviewListItem {
    type Error = RepoError;

    fn try_from(r: ListRow) -> Result<Self, RepoError> {
        Ok(ReviewListItem {
            id: r.id.into(),
            project_id: r.project_id.into(),
            project_name: r.project_name,
            mr_iid: r.mr_iid,
            mr_title: r.mr_title,
            mr_url: r.mr_url,
            status: named(&r.status, r.id)?,
            ai_provider: r.ai_provider,
            ai_model: r.ai_model,
            comment_count: r.comment_count,
            triggered_by: named(&r.triggered_by, r.id)?,
            overall_rating: r
                .overall_rating
                .as_deref()
                .map(|g| named(g, r.id))
                .transpose()?,
            summary: r.summary,
            created_at: r.created_at,
            completed_at: r.completed_at,
        })
    }
}

/// The list's stats over the whole filtered set, in one pass.
#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = reviews, check_for_backend(diesel::pg::Pg))]
pub(crate) struct StatsRow {
    #[diesel(select_expression = sql::<BigInt>("count(*)"), select_expression_type = SqlLiteral<BigInt>)]
    total: i64,
    #[diesel(select_expression = sql::<BigInt>("count(*) FILTER (WHERE status = 'pending')"), select_expression_type = SqlLiteral<BigInt>)]
    pending: i64,
    #[diesel(select_expression = sql::<BigInt>("count(*) FILTER (WHERE status = 'completed')"), select_expression_type = SqlLiteral<BigInt>)]
    completed: i64,
    #[diesel(select_expression = sql::<BigInt>("count(*) FILTER (WHERE status = 'failed')"), select_expression_type = SqlLiteral<BigInt>)]
    failed: i64,
    #[diesel(select_expression = sql::<BigInt>("coalesce(sum(comment_count), 0)::bigint"), select_expression_type = SqlLiteral<BigInt>)]
    comments: i64,
    #[diesel(select_expression = sql::<Nullable<Double>>("avg(score)::double precision"), select_expression_type = SqlLiteral<Nullable<Double>>)]
    average: Option<f64>,
    // Each review's calls are summed into its `cost_usd` by their trigger.
    #[diesel(select_expression = sql::<Double>("coalesce(sum(cost_usd), 0)::double precision"), select_expression_type = SqlLiteral<Double>)]
    cost: f64,
}

impl From<StatsRow> for ReviewStats {
    fn from(r: StatsRow) -> Self {
        ReviewStats {
            total: count(r.total),
            pending: count(r.pending),
            completed: count(r.completed),
            failed: count(r.failed),
            total_comments: count(r.comments),
            average_score: r.average.map(|a| (a * 10.0).round() / 10.0),
            total_cost_usd: r.cost,
            cost_by_day: Vec::new(),
        }
    }
}

/// One UTC day of the list's spending; the query groups and orders by the first
/// column, the day of the calls (not of their reviews).
#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = ai_call_logs, check_for_backend(diesel::pg::Pg))]
pub(crate) struct DayCostRow {
    #[diesel(select_expression = sql::<Date>("(ai_call_logs.created_at AT TIME ZONE 'UTC')::date"), select_expression_type = SqlLiteral<Date>)]
    date: NaiveDate,
    #[diesel(select_expression = sql::<Double>("sum(ai_call_logs.cost_usd)::double precision"), select_expression_type = SqlLiteral<Double>)]
    cost_usd: f64,
}

impl From<DayCostRow> for DayCost {
    fn from(r: DayCostRow) -> Self {
        DayCost {
            date: r.date,
            cost_usd: r.cost_usd,
        }
    }
}

/// One UTC day of the activity chart; the query groups and orders by the first
/// column, the day.
#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = reviews, check_for_backend(diesel::pg::Pg))]
pub(crate) struct DayRow {
    #[diesel(select_expression = sql::<Date>("(created_at AT TIME ZONE 'UTC')::date"), select_expression_type = SqlLiteral<Date>)]
    day: NaiveDate,
    #[diesel(select_expression = sql::<BigInt>("count(*)"), select_expression_type = SqlLiteral<BigInt>)]
    total: i64,
    #[diesel(select_expression = sql::<BigInt>("count(*) FILTER (WHERE status = 'completed')"), select_expression_type = SqlLiteral<BigInt>)]
    completed: i64,
    #[diesel(select_expression = sql::<BigInt>("count(*) FILTER (WHERE status = 'failed')"), select_expression_type = SqlLiteral<BigInt>)]
    failed: i64,
}

impl From<DayRow> for DayCount {
    fn from(r: DayRow) -> Self {
        DayCount {
            day: r.day,
            total: count(r.total),
            completed: count(r.completed),
            failed: count(r.failed),
        }
    }
}

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = reviews, check_for_backend(diesel::pg::Pg))]
pub(crate) struct FailedReviewRow {
    id: Uuid,
    project_name: String,
    mr_iid: i64,
    mr_title: String,
    error_message: Option<String>,
    created_at: DateTime<Utc>,
}

impl From<FailedReviewRow> for FailedReview {
    fn from(r: FailedReviewRow) -> Self {
        FailedReview {
            id: r.id.into(),
            project_name: r.project_name,
            mr_iid: r.mr_iid,
            mr_title: r.mr_title,
            error_message: r.error_message,
            created_at: r.created_at,
        }
    }
}

/// A review's list item and the rest its detail page shows.
#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = reviews, check_for_backend(diesel::pg::Pg))]
pub(crate) struct DetailRow {
    #[diesel(embed)]
    item: ListRow,
    base_commit_sha: Option<String>,
    head_commit_sha: String,
    start_commit_sha: Option<String>,
    round_number: i32,
    applied_rule_ids: Vec<String>,
    reviewed_lines: i32,
    score: Option<i32>,
    source_branch: String,
    target_branch: String,
    author_username: Option<String>,
    error_message: Option<String>,
    started_at: Option<DateTime<Utc>>,
    // The sum of the review's priced calls, kept by their trigger.
    cost_usd: Option<f64>,
}

impl TryFrom<DetailRow> for ReviewDetail {
    type Error = RepoError;

    fn try_from(r: DetailRow) -> Result<Self, RepoError> {
        Ok(ReviewDetail {
            item: r.item.try_into()?,
            base_commit_sha: r.base_commit_sha,
            head_commit_sha: r.head_commit_sha,
            start_commit_sha: r.start_commit_sha,
            round_number: r.round_number,
            applied_rule_ids: r.applied_rule_ids,
            reviewed_lines: r.reviewed_lines,
            score: r.score,
            source_branch: r.source_branch,
            target_branch: r.target_branch,
            author_username: r.author_username,
            error_message: r.error_message,
            started_at: r.started_at,
            cost_usd: r.cost_usd,
            // Summed from the calls by the detail query.
            tokens: TokenTotals::default(),
        })
    }
}

/// A comment with its round's number (`review_comments` joined to `review_rounds`).
#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = review_comments, check_for_backend(diesel::pg::Pg))]
pub(crate) struct CommentRow {
    id: Uuid,
    review_id: Uuid,
    file_path: String,
    line_number: i32,
    severity: String,
    message: String,
    host_a_discussion_id: Option<String>,
    #[diesel(select_expression = review_rounds::round_number)]
    round_number: i32,
    posted_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
    suggestion_start_line: Option<i32>,
    suggestion_end_line: Option<i32>,
    suggestion_code: Option<String>,
}

impl TryFrom<CommentRow> for CommentItem {
    type Error = RepoError;

    fn try_from(r: CommentRow) -> Result<Self, RepoError> {
        Ok(CommentItem {
            id: r.id,
            review_id: r.review_id.into(),
            file_path: r.file_path,
            line_number: r.line_number,
            severity: r
                .severity
                .parse()
                .map_err(|e: String| corrupt(format!("comment {}: {e}", r.id)))?,
            message: r.message,
            gitlab_discussion_id: r.host_a_discussion_id,
            round_number: r.round_number,
            posted_at: r.posted_at,
            created_at: r.created_at,
            // All or none, by a CHECK; lines of at least 1, by another.
            suggestion: match (
                r.suggestion_start_line,
                r.suggestion_end_line,
                r.suggestion_code,
            ) {
                (Some(start), Some(end), Some(code)) => Some(Suggestion {
                    start_line: u32::try_from(start).unwrap_or_default(),
                    end_line: u32::try_from(end).unwrap_or_default(),
                    code,
                }),
                _ => None,
            },
        })
    }
}

/// A reviewed file with its round's number (`review_files` joined to `review_rounds`).
#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = review_files, check_for_backend(diesel::pg::Pg))]
pub(crate) struct FileRow {
    id: Uuid,
    file_path: String,
    old_path: Option<String>,
    change_type: String,
    summary: Option<String>,
    comment_count: i32,
    status: String,
    prompt_summary: Option<String>,
    error_message: Option<String>,
    attempts: i32,
    #[diesel(select_expression = review_rounds::round_number)]
    round_number: i32,
    started_at: Option<DateTime<Utc>>,
    completed_at: Option<DateTime<Utc>>,
    context: Option<serde_json::Value>,
}

impl TryFrom<FileRow> for FileItem {
    type Error = RepoError;

    fn try_from(r: FileRow) -> Result<Self, RepoError> {
        Ok(FileItem {
            id: r.id.into(),
            file_path: r.file_path,
            old_path: r.old_path,
            change_type: r
                .change_type
                .parse()
                .map_err(|e: String| corrupt(format!("review file {}: {e}", r.id)))?,
            summary: r.summary,
            comment_count: r.comment_count,
            status: r
                .status
                .parse()
                .map_err(|e: String| corrupt(format!("review file {}: {e}", r.id)))?,
            prompt_summary: r.prompt_summary,
            error_message: r.error_message,
            attempts: r.attempts,
            round_number: r.round_number,
            started_at: r.started_at,
            completed_at: r.completed_at,
            // Written by this store from the same type: a value it cannot read
            // back costs only the display of the context.
            context: r.context.and_then(|v| serde_json::from_value(v).ok()),
        })
    }
}

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = review_rounds, check_for_backend(diesel::pg::Pg))]
pub(crate) struct RoundRow {
    id: Uuid,
    round_number: i32,
    is_differential: bool,
    base_sha: Option<String>,
    head_sha: String,
    file_count: i32,
    comment_count: i32,
    created_at: DateTime<Utc>,
    completed_at: Option<DateTime<Utc>>,
    context: Option<serde_json::Value>,
}

impl From<RoundRow> for RoundItem {
    fn from(r: RoundRow) -> Self {
        RoundItem {
            id: r.id,
            round_number: r.round_number,
            is_differential: r.is_differential,
            base_sha: r.base_sha,
            head_sha: r.head_sha,
            file_count: r.file_count,
            comment_count: r.comment_count,
            created_at: r.created_at,
            completed_at: r.completed_at,
            context: r.context.and_then(|v| serde_json::from_value(v).ok()),
        }
    }
}

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = review_feedbacks, check_for_backend(diesel::pg::Pg))]
pub(crate) struct FeedbackRow {
    id: Uuid,
    feedback_type: String,
    tracking_status: String,
    username: Option<String>,
    created_at: DateTime<Utc>,
}

impl TryFrom<FeedbackRow> for FeedbackItem {
    type Error = RepoError;

    fn try_from(r: FeedbackRow) -> Result<Self, RepoError> {
        let corrupt_row = |e: String| corrupt(format!("feedback {}: {e}", r.id));
        Ok(FeedbackItem {
            id: r.id,
            feedback_type: r.feedback_type.parse().map_err(corrupt_row)?,
            tracking_status: r.tracking_status.parse().map_err(corrupt_row)?,
            username: r.username,
            created_at: r.created_at,
        })
    }
}

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = ai_call_logs, check_for_backend(diesel::pg::Pg))]
pub(crate) struct AiLogRow {
    id: Uuid,
    provider: String,
    model: String,
    status: String,
    duration_ms: i64,
    prompt_tokens: i32,
    completion_tokens: i32,
    total_tokens: i32,
    cached_tokens: i32,
    cost_usd: Option<f64>,
    file_path: Option<String>,
    error_message: Option<String>,
    created_at: DateTime<Utc>,
}

impl TryFrom<AiLogRow> for AiLogItem {
    type Error = RepoError;

    fn try_from(r: AiLogRow) -> Result<Self, RepoError> {
        Ok(AiLogItem {
            id: r.id,
            provider: r.provider,
            model: r.model,
            status: r
                .status
                .parse()
                .map_err(|e: String| corrupt(format!("AI call {}: {e}", r.id)))?,
            duration_ms: r.duration_ms,
            prompt_tokens: r.prompt_tokens,
            completion_tokens: r.completion_tokens,
            total_tokens: r.total_tokens,
            cached_tokens: r.cached_tokens,
            cost_usd: r.cost_usd,
            file_path: r.file_path,
            error_message: r.error_message,
            created_at: r.created_at,
        })
    }
}

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = review_task_logs, check_for_backend(diesel::pg::Pg))]
pub(crate) struct TaskLogRow {
    task_id: Uuid,
    line_no: i32,
    message: String,
    created_at: DateTime<Utc>,
}

impl From<TaskLogRow> for TaskLogLine {
    fn from(r: TaskLogRow) -> Self {
        TaskLogLine {
            task_id: r.task_id,
            line_no: r.line_no,
            message: r.message,
            created_at: r.created_at,
        }
    }
}
