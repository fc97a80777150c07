//! The review list with its stats, and one review.

use super::context::ReviewTokensDto;
use super::schemas::{REVIEW_STATUSES, rating_schema, review_status_schema, triggered_by_schema};
use crate::envelope::{self, Data, PageMeta};
use crate::error::ApiError;
use crate::extract::{AuthUser, PageParams, choice, date_from, date_until};
use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use chrono::{DateTime, NaiveDate, Utc};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::ReviewId;
use reviewd_domain::model::review_views::ReviewFilter;
use reviewd_domain::model::review_views::{DayCost, ReviewDetail, ReviewListItem, ReviewStats};
use reviewd_domain::ports::FeedbackScope;
use serde::Deserialize;
use serde::Serialize;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// A date filter: `crate::field_schemas::date_or_datetime`, as a parameter's schema (its
/// `OneOf` is not one by itself).
#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub(super) struct ReviewListQuery {
    /// Only this project's reviews.
    #[param(value_type = Option<Uuid>)]
    project_id: Option<Uuid>,
    /// Only reviews in this state.
    #[param(schema_with = review_status_schema)]
    status: Option<String>,
    /// Only reviews created at or after this time (a plain date: from its start, UTC).
    #[param(schema_with = crate::field_schemas::date_or_datetime)]
    start_date: Option<String>,
    /// Only reviews created at or before this time (a plain date: to its end, UTC).
    #[param(schema_with = crate::field_schemas::date_or_datetime)]
    end_date: Option<String>,
    #[serde(flatten)]
    #[param(ignore)]
    page: PageParams,
}

/// The review history, newest first, with aggregates of the whole filtered set.
#[utoipa::path(
    params(ReviewListQuery, PageParams),
    responses((status = 200, body = ReviewPage))
)]
#[get("")]
pub(super) async fn list_reviews(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<ReviewListQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = ReviewFilter {
        project_id: q.project_id.map(ProjectId),
        project_search: None,
        status: choice("status", q.status.as_deref(), &REVIEW_STATUSES, |s| {
            s.parse().ok()
        })?,
        start_date: date_from("startDate", q.start_date.as_deref())?,
        end_date: date_until("endDate", q.end_date.as_deref())?,
        triggered_by: None,
    };
    let (page, stats) = state
        .history
        .list(&filter, q.page.to_request(20, 100)?)
        .await?;
    let pagination = envelope::Pagination::of(&page);
    Ok(HttpResponse::Ok().json(ReviewPage {
        data: ReviewPageData {
            items: page
                .items
                .into_iter()
                .map(ReviewListItemDto::from)
                .collect(),
            stats: stats.into(),
        },
        meta: PageMeta { pagination },
    }))
}

/// A review.
#[utoipa::path(responses((status = 200, body = Data<OneReview>)))]
#[get("/{review_id}")]
pub(super) async fn get_review(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let mut review = ReviewDetailDto::from(state.history.detail(ReviewId(*id)).await?);
    review.acceptance_rate = state
        .feedback
        .acceptance_rate(FeedbackScope::Review(ReviewId(*id)))
        .await?;
    Ok(envelope::ok(OneReview { review }))
}

// ---------------------------------------------------------------------------
// The review list and a review

/// A review as the history lists it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewListItemDto {
    id: Uuid,
    project_id: Uuid,
    project_name: String,
    mr_iid: i64,
    mr_title: String,
    mr_url: String,
    #[schema(schema_with = review_status_schema)]
    status: &'static str,
    ai_provider: String,
    ai_model: String,
    comment_count: i32,
    #[schema(schema_with = triggered_by_schema)]
    triggered_by: &'static str,
    #[schema(schema_with = rating_schema)]
    overall_rating: Option<&'static str>,
    summary: Option<String>,
    created_at: DateTime<Utc>,
    completed_at: Option<DateTime<Utc>>,
}

impl From<ReviewListItem> for ReviewListItemDto {
    fn from(r: ReviewListItem) -> Self {
        ReviewListItemDto {
            id: r.id.into(),
            project_id: r.project_id.into(),
            project_name: r.project_name,
            mr_iid: r.mr_iid,
            mr_title: r.mr_title,
            mr_url: r.mr_url,
            status: r.status.as_str(),
            ai_provider: r.ai_provider,
            ai_model: r.ai_model,
            comment_count: r.comment_count,
            triggered_by: r.triggered_by.as_str(),
            overall_rating: r.overall_rating.map(|g| g.as_str()),
            summary: r.summary,
            created_at: r.created_at,
            completed_at: r.completed_at,
        }
    }
}

/// Aggregates of the whole filtered set (not only the page).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewStatsDto {
    total: u64,
    pending: u64,
    completed: u64,
    failed: u64,
    total_comments: u64,
    /// The mean score of the scored reviews; `null` when none is.
    average_score: Option<f64>,
    /// USD spent on the AI calls of these reviews (calls of priced configurations).
    #[schema(minimum = 0)]
    total_cost_usd: f64,
    /// The same spending per UTC day of the calls, over the last 30 days (today
    /// included), oldest first; days without a priced call are left out.
    cost_by_day: Vec<DayCostDto>,
}

/// USD spent on one UTC day.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct DayCostDto {
    /// `YYYY-MM-DD`, UTC.
    date: NaiveDate,
    #[schema(minimum = 0)]
    cost_usd: f64,
}

impl From<DayCost> for DayCostDto {
    fn from(d: DayCost) -> Self {
        DayCostDto {
            date: d.date,
            cost_usd: d.cost_usd,
        }
    }
}

impl From<ReviewStats> for ReviewStatsDto {
    fn from(s: ReviewStats) -> Self {
        ReviewStatsDto {
            total: s.total,
            pending: s.pending,
            completed: s.completed,
            failed: s.failed,
            total_comments: s.total_comments,
            average_score: s.average_score,
            total_cost_usd: s.total_cost_usd,
            cost_by_day: s.cost_by_day.into_iter().map(DayCostDto::from).collect(),
        }
    }
}

/// `data` of the review list: a page of reviews and the set's aggregates.
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewPageData {
    pub items: Vec<ReviewListItemDto>,
    pub stats: ReviewStatsDto,
}

/// `{"data": {"items": [...], "stats": {...}}, "meta": {"pagination": {...}}}`.
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewPage {
    pub data: ReviewPageData,
    pub meta: PageMeta,
}

/// A review with everything recorded on it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewDetailDto {
    #[serde(flatten)]
    item: ReviewListItemDto,
    base_commit_sha: Option<String>,
    head_commit_sha: String,
    start_commit_sha: Option<String>,
    #[schema(minimum = 1)]
    round_number: i32,
    /// The review rules applied in its last round.
    applied_rule_ids: Vec<String>,
    reviewed_lines: i32,
    #[schema(minimum = 0, maximum = 100)]
    score: Option<i32>,
    source_branch: String,
    target_branch: String,
    author_username: Option<String>,
    error_message: Option<String>,
    started_at: Option<DateTime<Utc>>,
    /// USD: the sum of its AI calls' costs (`GET /api/reviews/{id}/ai-logs` lists
    /// them); `null` when its configuration had no prices.
    #[schema(minimum = 0)]
    cost_usd: Option<f64>,
    /// Of its comments that readers judged (a reaction, a reply, a resolved
    /// thread, a later fix), the share that helped: accepted or implemented.
    /// `null` until one is judged.
    #[schema(minimum = 0, maximum = 1)]
    acceptance_rate: Option<f64>,
    /// The tokens of its AI calls, the provider's cached prompt tokens among them.
    tokens: ReviewTokensDto,
}

impl From<ReviewDetail> for ReviewDetailDto {
    fn from(d: ReviewDetail) -> Self {
        ReviewDetailDto {
            item: d.item.into(),
            base_commit_sha: d.base_commit_sha,
            head_commit_sha: d.head_commit_sha,
            start_commit_sha: d.start_commit_sha,
            round_number: d.round_number,
            applied_rule_ids: d.applied_rule_ids,
            reviewed_lines: d.reviewed_lines,
            score: d.score,
            source_branch: d.source_branch,
            target_branch: d.target_branch,
            author_username: d.author_username,
            error_message: d.error_message,
            started_at: d.started_at,
            cost_usd: d.cost_usd,
            acceptance_rate: None,
            tokens: d.tokens.into(),
        }
    }
}

/// `{"review": ...}`.
#[derive(Serialize, ToSchema)]
pub(super) struct OneReview {
    pub review: ReviewDetailDto,
}
