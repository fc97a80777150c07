//! A review's comments, by file and line, filtered and paged.

use super::items_page::ReviewItemsPage;
use super::schemas::{SEVERITIES, severity_schema};
use super::{bounded, offset};
use crate::error::ApiError;
use crate::extract::{AuthUser, one_of};
use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use chrono::{DateTime, Utc};
use reviewd_domain::model::ReviewId;
use reviewd_domain::model::review_views::CommentItem;
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
            ReviewId(*id),
            q.file_path.as_deref(),
            severity.as_deref(),
            limit,
            offset,
        )
        .await?;
    let items = items.into_iter().map(ReviewCommentDto::from).collect();
    Ok(HttpResponse::Ok().json(ReviewItemsPage::new(items, limit, offset, total)))
}

/// A comment placed on a diff line.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewCommentDto {
    id: Uuid,
    review_id: Uuid,
    file_path: String,
    line_number: i32,
    #[schema(schema_with = severity_schema)]
    severity: &'static str,
    message: String,
    /// The discussion it opened on hostA, once posted there.
    #[serde(rename = "hostADiscussionId")]
    host_a_discussion_id: Option<String>,
    round_number: i32,
    posted_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
    /// The replacement code posted with the comment as the platform's suggestion;
    /// null when the model proposed none or its suggestion did not fit the diff.
    suggestion: Option<SuggestionDto>,
}

/// Replacement code for lines `startLine` to `endLine` (inclusive) of the file's new
/// version; `lineNumber` is among them.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct SuggestionDto {
    #[schema(minimum = 1)]
    start_line: u32,
    #[schema(minimum = 1)]
    end_line: u32,
    /// What those lines read once the suggestion is applied (empty: they are deleted).
    code: String,
}

impl From<CommentItem> for ReviewCommentDto {
    fn from(c: CommentItem) -> Self {
        ReviewCommentDto {
            id: c.id,
            review_id: c.review_id.into(),
            file_path: c.file_path,
            line_number: c.line_number,
            severity: c.severity.as_str(),
            message: c.message,
            host_a_discussion_id: c.gitlab_discussion_id,
            round_number: c.round_number,
            posted_at: c.posted_at,
            created_at: c.created_at,
            suggestion: c.suggestion.map(|s| SuggestionDto {
                start_line: s.start_line,
                end_line: s.end_line,
                code: s.code,
            }),
        }
    }
}
