//! What a review did: the AI calls made for it and the execution log of its tasks.

use super::items_page::ReviewItemsPage;
use super::schemas::{AI_CALL_STATUSES, ai_call_status_schema, review_status_schema};
use super::{bounded, offset};
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::{AuthUser, choice};
use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use chrono::{DateTime, Utc};
use reviewd_domain::model::ReviewId;
use reviewd_domain::model::review::AiCallStatus;
use reviewd_domain::model::review_views::{AiLogItem, TaskLogLine};
use serde::Deserialize;
use serde::Serialize;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

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
    let status = choice(
        "status",
        q.status.as_deref(),
        &AI_CALL_STATUSES,
        AiCallStatus::parse,
    )?;
    let (limit, offset) = (
        bounded("limit", q.limit.as_deref(), 50, 1, 200)?,
        offset(q.offset.as_deref())?,
    );
    let (items, total) = state
        .history
        .ai_logs(ReviewId(*id), q.provider.as_deref(), status, limit, offset)
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
    let review = state.history.detail(ReviewId(*id)).await?;
    let lines = state.history.task_logs(ReviewId(*id)).await?;
    Ok(envelope::ok(ReviewExecutionLog {
        review_id: review.item.id.into(),
        status: review.item.status.as_str(),
        error_message: review.error_message,
        started_at: review.started_at,
        completed_at: review.item.completed_at,
        lines: lines.into_iter().map(ReviewTaskLogLineDto::from).collect(),
    }))
}

/// One call made to an AI model for the review.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewAiLogDto {
    id: Uuid,
    provider: String,
    model: String,
    #[schema(schema_with = ai_call_status_schema)]
    status: &'static str,
    duration_ms: i64,
    prompt_tokens: i32,
    completion_tokens: i32,
    total_tokens: i32,
    /// USD: the tokens times the AI configuration's prices when the call was made;
    /// `null` when it had none.
    cost_usd: Option<f64>,
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
            status: l.status.as_str(),
            duration_ms: l.duration_ms,
            prompt_tokens: l.prompt_tokens,
            completion_tokens: l.completion_tokens,
            total_tokens: l.total_tokens,
            cost_usd: l.cost_usd,
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
    pub status: &'static str,
    pub error_message: Option<String>,
    pub started_at: Option<DateTime<Utc>>,
    pub completed_at: Option<DateTime<Utc>>,
    pub lines: Vec<ReviewTaskLogLineDto>,
}
