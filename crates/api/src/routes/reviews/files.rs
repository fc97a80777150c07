//! A review's files: the list, each file's progress, and a failed file's retry.

use super::context::FileContextDto;
use super::schemas::{change_type_schema, file_status_schema};
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::{AuthUser, RequirePermission, perm};
use crate::state::AppState;
use actix_web::{HttpResponse, get, post, web};
use chrono::{DateTime, Utc};
use reviewd_domain::model::review_views::FileItem;
use reviewd_domain::model::{ReviewFileId, ReviewId};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// The files of the review.
#[utoipa::path(responses((status = 200, body = Data<ReviewFiles>)))]
#[get("/{review_id}/files")]
pub(super) async fn list_review_files(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let files = state.history.files(ReviewId(*id)).await?;
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
    let files = state.history.files(ReviewId(*id)).await?;
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
    let (review_id, file_id) = (ReviewId(review_id), ReviewFileId(file_id));
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

/// A file of the review, as it is being (or has been) reviewed.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewFileDto {
    id: Uuid,
    file_path: String,
    old_path: Option<String>,
    #[schema(schema_with = change_type_schema)]
    change_type: &'static str,
    summary: Option<String>,
    comment_count: i32,
    #[schema(schema_with = file_status_schema)]
    status: &'static str,
    prompt_summary: Option<String>,
    error_message: Option<String>,
    attempts: i32,
    round_number: i32,
    started_at: Option<DateTime<Utc>>,
    completed_at: Option<DateTime<Utc>>,
    /// What the file's review was given besides its diff (`null` for a file not
    /// reviewed yet, skipped, or reviewed before context was recorded).
    context: Option<FileContextDto>,
}

impl From<FileItem> for ReviewFileDto {
    fn from(f: FileItem) -> Self {
        ReviewFileDto {
            id: f.id.into(),
            file_path: f.file_path,
            old_path: f.old_path,
            change_type: f.change_type.as_str(),
            summary: f.summary,
            comment_count: f.comment_count,
            status: f.status.as_str(),
            prompt_summary: f.prompt_summary,
            error_message: f.error_message,
            attempts: f.attempts,
            round_number: f.round_number,
            started_at: f.started_at,
            completed_at: f.completed_at,
            context: f.context.map(FileContextDto::from),
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
    status: &'static str,
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
            file_id: f.id.into(),
            file_path: f.file_path.clone(),
            status: f.status.as_str(),
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
