//! What is recorded about one review: comments, files and their progress, rounds,
//! feedback, AI calls and the execution log.

use super::schemas::{
    AI_CALL_STATUSES, SEVERITIES, ai_call_status_schema, change_type_schema, feedback_type_schema,
    file_status_schema, review_status_schema, severity_schema, tracking_status_schema,
};
use super::{bounded, offset};
use crate::envelope::{self, Data, Items};
use crate::error::ApiError;
use crate::extract::{AuthUser, RequirePermission, one_of, perm};
use crate::state::AppState;
use actix_web::{HttpResponse, get, post, web};
use chrono::{DateTime, Utc};
use reviewd_domain::model::review_views::{
    AiLogItem, CommentItem, FeedbackItem, FileItem, RoundItem, TaskLogLine,
};
use serde::Deserialize;
use serde::Serialize;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub(super) struct CommentsQuery {
    /// Only the comments on this file (its path in the merge request).
    file_path: Option<String>,
    /// Only comments of this severity.
    #[param(schema_with = severity_schema)]
    severity: Option<String>,
    /// How many comments (20 when absent); above 100 it is clamped to 100.
    #[param(value_type = Option<u64>, minimum = 1, maximum = 18_446_744_073_709_551_615_u64)]
    limit: Option<String>,
    /// How many comments to skip (0 when absent).
    #[param(value_type = Option<u64>, minimum = 0, maximum = 18_446_744_073_709_551_615_u64)]
    offset: Option<String>,
}

/// The review's comments, by file and line.
#[utoipa::path(
    params(CommentsQuery),
    responses((status = 200, body = ReviewItemsPage<ReviewCommentDto>))
)]
#[get("/{review_id}/comments")]
pub(super) async fn list_review_comments(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
    q: web::Query<CommentsQuery>,
) -> Result<HttpResponse, ApiError> {
    let severity = one_of("severity", q.severity.as_deref(), &SEVERITIES)?;
    let (limit, offset) = (
        bounded("limit", q.limit.as_deref(), 20, 1, 100)?,
        offset(q.offset.as_deref())?,
    );
    let (items, total) = state
        .history
        .comments(
            *id,
            q.file_path.as_deref(),
            severity.as_deref(),
            limit,
            offset,
        )
        .await?;
    let items = items.into_iter().map(ReviewCommentDto::from).collect();
    Ok(HttpResponse::Ok().json(ReviewItemsPage::new(items, limit, offset, total)))
}

/// The files of the review.
#[utoipa::path(responses((status = 200, body = Data<ReviewFiles>)))]
#[get("/{review_id}/files")]
pub(super) async fn list_review_files(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let files = state.history.files(*id).await?;
    Ok(envelope::ok(ReviewFiles {
        files: files.into_iter().map(ReviewFileDto::from).collect(),
    }))
}

/// Per-file processing status with the prompt summary, as the files are reviewed.
#[utoipa::path(responses((status = 200, body = Data<ReviewFileProgressReport>)))]
#[get("/{review_id}/files/progress")]
pub(super) async fn get_review_file_progress(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let files = state.history.files(*id).await?;
    let progress: Vec<ReviewFileProgressDto> =
        files.iter().map(ReviewFileProgressDto::from).collect();
    let done = files
        .iter()
        .filter(|f| matches!(f.status.as_str(), "completed" | "failed" | "skipped"))
        .count();
    Ok(envelope::ok(ReviewFileProgressReport {
        files: progress,
        completed: done,
        total: files.len(),
    }))
}

/// Re-runs the review of one file now and answers with the file's new state.
#[utoipa::path(responses((status = 200, body = Data<RetriedReviewFile>)))]
#[post("/{review_id}/files/{file_id}/retry")]
pub(super) async fn retry_review_file(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ReviewCreate>,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let (review_id, file_id) = path.into_inner();
    let added = state.engine.retry_file(review_id, file_id).await?;
    let file = state
        .history
        .files(review_id)
        .await?
        .into_iter()
        .find(|f| f.id == file_id);
    Ok(envelope::ok(RetriedReviewFile {
        success: true,
        new_comments: added,
        file: file.map(ReviewFileDto::from),
    }))
}

/// The rounds of the review, one per reviewed head, oldest first.
#[utoipa::path(responses((status = 200, body = Data<ReviewRounds>)))]
#[get("/{review_id}/rounds")]
pub(super) async fn list_review_rounds(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let rounds = state.history.rounds(*id).await?;
    Ok(envelope::ok(ReviewRounds {
        rounds: rounds.into_iter().map(ReviewRoundDto::from).collect(),
    }))
}

/// The feedback given on the review's comments.
#[utoipa::path(responses((status = 200, body = Data<ReviewFeedbacks>)))]
#[get("/{review_id}/feedbacks")]
pub(super) async fn list_review_feedbacks(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let feedbacks = state.history.feedbacks(*id).await?;
    Ok(envelope::ok(ReviewFeedbacks {
        feedbacks: feedbacks.into_iter().map(ReviewFeedbackDto::from).collect(),
    }))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(super) struct AiLogsQuery {
    /// How many calls (50 when absent); above 200 it is clamped to 200.
    #[param(value_type = Option<u64>, minimum = 1, maximum = 18_446_744_073_709_551_615_u64)]
    limit: Option<String>,
    /// How many calls to skip (0 when absent).
    #[param(value_type = Option<u64>, minimum = 0, maximum = 18_446_744_073_709_551_615_u64)]
    offset: Option<String>,
    /// Only the calls to this AI provider.
    provider: Option<String>,
    /// Only the calls with this outcome.
    #[param(schema_with = ai_call_status_schema)]
    status: Option<String>,
}

/// The AI calls made for the review, newest first.
#[utoipa::path(
    params(AiLogsQuery),
    responses((status = 200, body = ReviewItemsPage<ReviewAiLogDto>))
)]
#[get("/{review_id}/ai-logs")]
pub(super) async fn list_review_ai_logs(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
    q: web::Query<AiLogsQuery>,
) -> Result<HttpResponse, ApiError> {
    let status = one_of("status", q.status.as_deref(), &AI_CALL_STATUSES)?;
    let (limit, offset) = (
        bounded("limit", q.limit.as_deref(), 50, 1, 200)?,
        offset(q.offset.as_deref())?,
    );
    let (items, total) = state
        .history
        .ai_logs(*id, q.provider.as_deref(), status.as_deref(), limit, offset)
        .await?;
    let items = items.into_iter().map(ReviewAiLogDto::from).collect();
    Ok(HttpResponse::Ok().json(ReviewItemsPage::new(items, limit, offset, total)))
}

/// The execution log of the review: its task records and their log lines.
#[utoipa::path(responses((status = 200, body = Data<ReviewExecutionLog>)))]
#[get("/{review_id}/logs")]
pub(super) async fn get_review_logs(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let review = state.history.detail(*id).await?;
    let lines = state.history.task_logs(*id).await?;
    Ok(envelope::ok(ReviewExecutionLog {
        review_id: review.item.id,
        status: review.item.status,
        error_message: review.error_message,
        started_at: review.started_at,
        completed_at: review.item.completed_at,
        lines: lines.into_iter().map(ReviewTaskLogLineDto::from).collect(),
    }))
}

// ---------------------------------------------------------------------------
// What is recorded about a review

/// A comment placed on a diff line.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewCommentDto {
    id: Uuid,
    review_id: Uuid,
    file_path: String,
    line_number: i32,
    #[schema(schema_with = severity_schema)]
    severity: String,
    message: String,
    /// The discussion it opened on hostA, once posted there.
    #[serde(rename = "hostADiscussionId")]
    host_a_discussion_id: Option<String>,
    round_number: i32,
    posted_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
}

impl From<CommentItem> for ReviewCommentDto {
    fn from(c: CommentItem) -> Self {
        ReviewCommentDto {
            id: c.id,
            review_id: c.review_id,
            file_path: c.file_path,
            line_number: c.line_number,
            severity: c.severity,
            message: c.message,
            host_a_discussion_id: c.host_a_discussion_id,
            round_number: c.round_number,
            posted_at: c.posted_at,
            created_at: c.created_at,
        }
    }
}

/// A file of the review, as it is being (or has been) reviewed.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewFileDto {
    id: Uuid,
    file_path: String,
    old_path: Option<String>,
    #[schema(schema_with = change_type_schema)]
    change_type: String,
    summary: Option<String>,
    comment_count: i32,
    #[schema(schema_with = file_status_schema)]
    status: String,
    prompt_summary: Option<String>,
    error_message: Option<String>,
    attempts: i32,
    round_number: i32,
    started_at: Option<DateTime<Utc>>,
    completed_at: Option<DateTime<Utc>>,
}

impl From<FileItem> for ReviewFileDto {
    fn from(f: FileItem) -> Self {
        ReviewFileDto {
            id: f.id,
            file_path: f.file_path,
            old_path: f.old_path,
            change_type: f.change_type,
            summary: f.summary,
            comment_count: f.comment_count,
            status: f.status,
            prompt_summary: f.prompt_summary,
            error_message: f.error_message,
            attempts: f.attempts,
            round_number: f.round_number,
            started_at: f.started_at,
            completed_at: f.completed_at,
        }
    }
}

/// `{"files": [...]}`.
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewFiles {
    pub files: Vec<ReviewFileDto>,
}

/// Where one file's review stands.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewFileProgressDto {
    file_id: Uuid,
    file_path: String,
    #[schema(schema_with = file_status_schema)]
    status: String,
    prompt_summary: Option<String>,
    comment_count: i32,
    attempts: i32,
    error_message: Option<String>,
    started_at: Option<DateTime<Utc>>,
    completed_at: Option<DateTime<Utc>>,
}

impl From<&FileItem> for ReviewFileProgressDto {
    fn from(f: &FileItem) -> Self {
        ReviewFileProgressDto {
            file_id: f.id,
            file_path: f.file_path.clone(),
            status: f.status.clone(),
            prompt_summary: f.prompt_summary.clone(),
            comment_count: f.comment_count,
            attempts: f.attempts,
            error_message: f.error_message.clone(),
            started_at: f.started_at,
            completed_at: f.completed_at,
        }
    }
}

/// Each file's progress, and how many of them are done (completed, failed or skipped).
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewFileProgressReport {
    pub files: Vec<ReviewFileProgressDto>,
    pub completed: usize,
    pub total: usize,
}

/// The answer of a file's retry: the file's new state.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct RetriedReviewFile {
    pub success: bool,
    /// Comments the new pass added (those already made are not repeated).
    pub new_comments: usize,
    /// The file after the retry; `null` if it is no longer listed.
    pub file: Option<ReviewFileDto>,
}

/// A round: one reviewed head of the merge request.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewRoundDto {
    id: Uuid,
    #[schema(minimum = 1)]
    round_number: i32,
    /// Whether only what changed since the previous round was reviewed.
    is_differential: bool,
    base_sha: Option<String>,
    head_sha: String,
    file_count: i32,
    comment_count: i32,
    created_at: DateTime<Utc>,
    completed_at: Option<DateTime<Utc>>,
}

impl From<RoundItem> for ReviewRoundDto {
    fn from(r: RoundItem) -> Self {
        ReviewRoundDto {
            id: r.id,
            round_number: r.round_number,
            is_differential: r.is_differential,
            base_sha: r.base_sha,
            head_sha: r.head_sha,
            file_count: r.file_count,
            comment_count: r.comment_count,
            created_at: r.created_at,
            completed_at: r.completed_at,
        }
    }
}

/// `{"rounds": [...]}`.
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewRounds {
    pub rounds: Vec<ReviewRoundDto>,
}

/// Feedback given on the review's comments.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewFeedbackDto {
    id: Uuid,
    #[schema(schema_with = feedback_type_schema)]
    feedback_type: String,
    #[schema(schema_with = tracking_status_schema)]
    tracking_status: String,
    username: Option<String>,
    created_at: DateTime<Utc>,
}

impl From<FeedbackItem> for ReviewFeedbackDto {
    fn from(f: FeedbackItem) -> Self {
        ReviewFeedbackDto {
            id: f.id,
            feedback_type: f.feedback_type,
            tracking_status: f.tracking_status,
            username: f.username,
            created_at: f.created_at,
        }
    }
}

/// `{"feedbacks": [...]}`.
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewFeedbacks {
    pub feedbacks: Vec<ReviewFeedbackDto>,
}

/// One call made to an AI model for the review.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewAiLogDto {
    id: Uuid,
    provider: String,
    model: String,
    #[schema(schema_with = ai_call_status_schema)]
    status: String,
    duration_ms: i64,
    prompt_tokens: i32,
    completion_tokens: i32,
    total_tokens: i32,
    file_path: Option<String>,
    error_message: Option<String>,
    created_at: DateTime<Utc>,
}

impl From<AiLogItem> for ReviewAiLogDto {
    fn from(l: AiLogItem) -> Self {
        ReviewAiLogDto {
            id: l.id,
            provider: l.provider,
            model: l.model,
            status: l.status,
            duration_ms: l.duration_ms,
            prompt_tokens: l.prompt_tokens,
            completion_tokens: l.completion_tokens,
            total_tokens: l.total_tokens,
            file_path: l.file_path,
            error_message: l.error_message,
            created_at: l.created_at,
        }
    }
}

/// A line of the execution log of a task that worked on the review.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewTaskLogLineDto {
    task_id: Uuid,
    line_no: i32,
    message: String,
    created_at: DateTime<Utc>,
}

impl From<TaskLogLine> for ReviewTaskLogLineDto {
    fn from(l: TaskLogLine) -> Self {
        ReviewTaskLogLineDto {
            task_id: l.task_id,
            line_no: l.line_no,
            message: l.message,
            created_at: l.created_at,
        }
    }
}

/// The review's execution log: its state and the log lines of its tasks.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewExecutionLog {
    pub review_id: Uuid,
    #[schema(schema_with = review_status_schema)]
    pub status: String,
    pub error_message: Option<String>,
    pub started_at: Option<DateTime<Utc>>,
    pub completed_at: Option<DateTime<Utc>>,
    pub lines: Vec<ReviewTaskLogLineDto>,
}

/// Where a limit/offset list stands.
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewItemsPagination {
    /// The most items answered (after clamping to the endpoint's maximum).
    pub limit: u32,
    /// How many items were skipped.
    pub offset: u64,
    /// How many items match in all.
    pub total: u64,
}

#[derive(Serialize, ToSchema)]
pub(super) struct ReviewItemsMeta {
    pub pagination: ReviewItemsPagination,
}

/// `{"data": {"items": [T]}, "meta": {"pagination": {"limit", "offset", "total"}}}`: a
/// review's comments or AI calls, by limit and offset.
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewItemsPage<T> {
    pub data: Items<T>,
    pub meta: ReviewItemsMeta,
}

impl<T> ReviewItemsPage<T> {
    pub fn new(items: Vec<T>, limit: u32, offset: u64, total: u64) -> Self {
        ReviewItemsPage {
            data: Items { items },
            meta: ReviewItemsMeta {
                pagination: ReviewItemsPagination {
                    limit,
                    offset,
                    total,
                },
            },
        }
    }
}
