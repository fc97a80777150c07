//! A review's rounds (one per reviewed head) and the feedback on its comments.

use super::context::RoundContextDto;
use super::schemas::{feedback_type_schema, tracking_status_schema};
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::AuthUser;
use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use chrono::{DateTime, Utc};
use reviewd_domain::model::ReviewId;
use reviewd_domain::model::review_views::{FeedbackItem, RoundItem};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// The rounds of the review, one per reviewed head, oldest first.
#[utoipa::path(responses((status = 200, body = Data<ReviewRounds>)))]
#[get("/{review_id}/rounds")]
pub(super) async fn list_review_rounds(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let rounds = state.history.rounds(ReviewId(*id)).await?;
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
    let feedbacks = state.history.feedbacks(ReviewId(*id)).await?;
    Ok(envelope::ok(ReviewFeedbacks {
        feedbacks: feedbacks.into_iter().map(ReviewFeedbackDto::from).collect(),
    }))
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
    /// What gathering the round's context cost and found (`null` before it was
    /// recorded).
    context: Option<RoundContextDto>,
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
            context: r.context.map(RoundContextDto::from),
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
    feedback_type: &'static str,
    #[schema(schema_with = tracking_status_schema)]
    tracking_status: &'static str,
    username: Option<String>,
    created_at: DateTime<Utc>,
}

impl From<FeedbackItem> for ReviewFeedbackDto {
    fn from(f: FeedbackItem) -> Self {
        ReviewFeedbackDto {
            id: f.id,
            feedback_type: f.feedback_type.as_str(),
            tracking_status: f.tracking_status.as_str(),
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
