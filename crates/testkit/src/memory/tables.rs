//! The rows of the tables the domain reads across ports: domain types plus the
//! columns only the store sees (leases, dedup keys, fingerprints). Ports that nobody
//! else reads keep their rows in their own module; [`super::Tables`] holds them all.

use chrono::{DateTime, Utc};
use reviewd_domain::model::review_views::{
    AiLogItem, CommentItem, FeedbackItem, FileItem, ReviewDetail, RoundItem,
};
use reviewd_domain::model::runner::{Runner, RunnerAssignment, RunnerPhase};
use reviewd_domain::model::{ReviewId, ReviewTask};
use uuid::Uuid;

/// A review task with the columns of `review_tasks` the domain type leaves out.
#[derive(Debug, Clone)]
pub(crate) struct TaskRow {
    pub task: ReviewTask,
    /// SQL's `in_progress` (a runner's result accepted, being concluded), which the
    /// domain reads as `Processing` too; set on every move into `Processing`.
    pub in_progress: bool,
    pub dedup_key: Option<String>,
    pub stream_message_id: Option<String>,
    pub runner_id: Option<String>,
    pub runner_phase: Option<RunnerPhase>,
    pub claimed_at: Option<DateTime<Utc>>,
    pub heartbeat_at: Option<DateTime<Utc>>,
    pub lease_expires_at: Option<DateTime<Utc>>,
    pub required_tags: Vec<String>,
    pub result: Option<serde_json::Value>,
    pub metrics: Option<serde_json::Value>,
    pub assignment: Option<RunnerAssignment>,
}

/// A runner and the API key it registered with.
#[derive(Debug, Clone)]
pub(crate) struct RunnerRow {
    pub runner: Runner,
    pub api_key_id: Option<Uuid>,
    pub updated_at: DateTime<Utc>,
}

/// A review as `reviews` holds it: the detail view plus the engine's columns.
#[derive(Debug, Clone)]
pub(crate) struct ReviewRow {
    pub detail: ReviewDetail,
    pub summary_comment_id: Option<String>,
}

#[derive(Debug, Clone)]
pub(crate) struct RoundRow {
    pub review_id: ReviewId,
    pub round: RoundItem,
}

#[derive(Debug, Clone)]
pub(crate) struct FileRow {
    pub review_id: ReviewId,
    pub round_id: Uuid,
    pub file: FileItem,
}

#[derive(Debug, Clone)]
pub(crate) struct CommentRow {
    pub round_id: Uuid,
    pub fingerprint: String,
    pub comment: CommentItem,
}

#[derive(Debug, Clone)]
pub(crate) struct FeedbackRow {
    pub review_id: ReviewId,
    pub comment_id: Option<Uuid>,
    pub feedback: FeedbackItem,
    /// The origin: source, source id, with the comment and the user its key.
    pub source: &'static str,
    pub source_id: String,
    pub note: Option<String>,
}

#[derive(Debug, Clone)]
pub(crate) struct AiCallRow {
    pub review_id: Option<ReviewId>,
    pub call: AiLogItem,
}

/// The sum of a review's priced calls; `None` when none had a price.
pub(crate) fn review_cost(calls: &[AiCallRow], review_id: ReviewId) -> Option<f64> {
    calls
        .iter()
        .filter(|c| c.review_id == Some(review_id))
        .filter_map(|c| c.call.cost_usd)
        .reduce(|a, b| a + b)
}
