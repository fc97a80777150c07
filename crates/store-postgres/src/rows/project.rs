//! Rows of projects, and of what the projects pages show about them: their counts,
//! their recent reviews and their pipeline (review tasks).

use super::count;
use crate::error::corrupt;
use crate::schema::{projects, review_tasks, reviews};
use chrono::{DateTime, Utc};
use diesel::dsl::sql;
use diesel::expression::SqlLiteral;
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use reviewd_domain::model::{PipelineEntry, Project, ProjectStats, ReviewSummary};
use reviewd_domain::ports::RepoError;
use uuid::Uuid;

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = projects, check_for_backend(diesel::pg::Pg))]
pub(crate) struct ProjectRow {
    pub id: Uuid,
    pub platform_config_id: Uuid,
    pub platform_type: String,
    pub platform_project_id: String,
    pub name: String,
    pub full_path: String,
    pub web_url: String,
    pub default_branch: Option<String>,
    pub visibility: Option<String>,
    pub enabled: bool,
    pub auto_review: Option<bool>,
    pub file_ignore_patterns: Option<Vec<String>>,
    pub ai_config_id: Option<Uuid>,
    pub send_to_platform: Option<bool>,
    pub default_reviewer_ids: Vec<String>,
    pub auto_assign_author: bool,
    pub template_id: Option<Uuid>,
    pub webhook_id: Option<String>,
    pub webhook_url: Option<String>,
    pub webhook_status: Option<String>,
    pub webhook_checked_at: Option<DateTime<Utc>>,
    pub last_synced_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub monthly_budget_usd: Option<f64>,
    pub suppress_rejected: bool,
    pub context_budget_tokens: Option<i32>,
    pub refuse_outsiders: bool,
    pub gate_enabled: bool,
    pub gate_min_rating: Option<String>,
}

impl TryFrom<ProjectRow> for Project {
    type Error = RepoError;

    fn try_from(r: ProjectRow) -> Result<Self, RepoError> {
        Ok(Project {
            platform_type: r.platform_type.parse().map_err(|e: String| corrupt(e))?,
            webhook_status: r
                .webhook_status
                .map(|s| s.parse())
                .transpose()
                .map_err(|e: String| corrupt(e))?,
            id: r.id.into(),
            platform_config_id: r.platform_config_id,
            platform_project_id: r.platform_project_id,
            name: r.name,
            full_path: r.full_path,
            web_url: r.web_url,
            default_branch: r.default_branch,
            visibility: r.visibility,
            enabled: r.enabled,
            auto_review: r.auto_review,
            file_ignore_patterns: r.file_ignore_patterns,
            ai_config_id: r.ai_config_id,
            send_to_platform: r.send_to_platform,
            default_reviewer_ids: r.default_reviewer_ids,
            auto_assign_author: r.auto_assign_author,
            template_id: r.template_id,
            monthly_budget_usd: r.monthly_budget_usd,
            suppress_rejected: r.suppress_rejected,
            refuse_outsiders: r.refuse_outsiders,
            gate_enabled: r.gate_enabled,
            gate_min_rating: r
                .gate_min_rating
                .map(|g| g.parse().map_err(|e: String| corrupt(e)))
                .transpose()?,
            context_budget_tokens: r
                .context_budget_tokens
                .map(|n| u32::try_from(n).map_err(|e| corrupt(e.to_string())))
                .transpose()?,
            webhook_id: r.webhook_id,
            webhook_url: r.webhook_url,
            webhook_checked_at: r.webhook_checked_at,
            last_synced_at: r.last_synced_at,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

/// A count with a filter, for the one-pass stats queries.
fn counted(condition: &str) -> SqlLiteral<BigInt> {
    sql::<BigInt>(&format!("count(*) FILTER (WHERE {condition})"))
}

/// The projects' counts, in one pass over `projects`.
#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = projects, check_for_backend(diesel::pg::Pg))]
pub(crate) struct ProjectCountsRow {
    #[diesel(select_expression = sql::<BigInt>("count(*)"), select_expression_type = SqlLiteral<BigInt>)]
    total: i64,
    #[diesel(select_expression = counted("enabled"), select_expression_type = SqlLiteral<BigInt>)]
    enabled: i64,
    #[diesel(select_expression = counted("platform_type = 'hostA'"), select_expression_type = SqlLiteral<BigInt>)]
    host_a: i64,
    #[diesel(select_expression = counted("platform_type = 'hostB'"), select_expression_type = SqlLiteral<BigInt>)]
    host_b: i64,
    #[diesel(select_expression = counted("webhook_status = 'active'"), select_expression_type = SqlLiteral<BigInt>)]
    webhook_active: i64,
    #[diesel(select_expression = counted("webhook_status = 'inactive'"), select_expression_type = SqlLiteral<BigInt>)]
    webhook_inactive: i64,
    #[diesel(select_expression = counted("webhook_status = 'error'"), select_expression_type = SqlLiteral<BigInt>)]
    webhook_error: i64,
    #[diesel(select_expression = counted("webhook_status = 'unknown'"), select_expression_type = SqlLiteral<BigInt>)]
    webhook_unknown: i64,
    #[diesel(select_expression = counted("auto_review IS NOT NULL"), select_expression_type = SqlLiteral<BigInt>)]
    auto_review_overrides: i64,
}

/// The reviews' counts by status, in one pass over `reviews`.
#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = reviews, check_for_backend(diesel::pg::Pg))]
pub(crate) struct ReviewCountsRow {
    #[diesel(select_expression = sql::<BigInt>("count(*)"), select_expression_type = SqlLiteral<BigInt>)]
    total: i64,
    #[diesel(select_expression = counted("status = 'pending'"), select_expression_type = SqlLiteral<BigInt>)]
    pending: i64,
    #[diesel(select_expression = counted("status = 'completed'"), select_expression_type = SqlLiteral<BigInt>)]
    completed: i64,
    #[diesel(select_expression = counted("status = 'failed'"), select_expression_type = SqlLiteral<BigInt>)]
    failed: i64,
}

impl ProjectCountsRow {
    /// The projects page's stats: these counts and the reviews'.
    pub(crate) fn into_stats(self, r: ReviewCountsRow) -> ProjectStats {
        let p = self;
        let configured =
            p.webhook_active + p.webhook_inactive + p.webhook_error + p.webhook_unknown;
        ProjectStats {
            total: count(p.total),
            enabled: count(p.enabled),
            disabled: count(p.total - p.enabled),
            gitlab: count(p.host_a),
            github: count(p.host_b),
            webhook_active: count(p.webhook_active),
            webhook_inactive: count(p.webhook_inactive),
            webhook_error: count(p.webhook_error),
            webhook_unknown: count(p.webhook_unknown),
            webhook_not_configured: count(p.total - configured),
            auto_review_overrides: count(p.auto_review_overrides),
            reviews_total: count(r.total),
            reviews_pending: count(r.pending),
            reviews_completed: count(r.completed),
            reviews_failed: count(r.failed),
            ..ProjectStats::default()
        }
    }
}

/// A project's review, as its page lists them.
#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = reviews, check_for_backend(diesel::pg::Pg))]
pub(crate) struct ReviewSummaryRow {
    id: Uuid,
    mr_iid: i64,
    mr_title: String,
    mr_url: String,
    status: String,
    overall_rating: Option<String>,
    comment_count: i32,
    triggered_by: String,
    created_at: DateTime<Utc>,
    completed_at: Option<DateTime<Utc>>,
}

impl TryFrom<ReviewSummaryRow> for ReviewSummary {
    type Error = RepoError;

    fn try_from(r: ReviewSummaryRow) -> Result<Self, RepoError> {
        let corrupt_row = |e: String| corrupt(format!("review {}: {e}", r.id));
        Ok(ReviewSummary {
            id: r.id.into(),
            mr_iid: r.mr_iid,
            mr_title: r.mr_title,
            mr_url: r.mr_url,
            status: r.status.parse().map_err(corrupt_row)?,
            overall_rating: r
                .overall_rating
                .map(|g| g.parse())
                .transpose()
                .map_err(corrupt_row)?,
            comment_count: r.comment_count,
            triggered_by: r.triggered_by.parse().map_err(corrupt_row)?,
            created_at: r.created_at,
            completed_at: r.completed_at,
        })
    }
}

/// A review task as the pipelines page shows it.
#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = review_tasks, check_for_backend(diesel::pg::Pg))]
pub(crate) struct PipelineRow {
    id: Uuid,
    review_id: Option<Uuid>,
    mr_iid: i64,
    head_sha: Option<String>,
    status: String,
    triggered_by: String,
    attempts: i32,
    runner_id: Option<String>,
    error_message: Option<String>,
    created_at: DateTime<Utc>,
    started_at: Option<DateTime<Utc>>,
    completed_at: Option<DateTime<Utc>>,
}

impl TryFrom<PipelineRow> for PipelineEntry {
    type Error = RepoError;

    fn try_from(r: PipelineRow) -> Result<Self, RepoError> {
        let corrupt_row = |e: String| corrupt(format!("review task {}: {e}", r.id));
        Ok(PipelineEntry {
            id: r.id,
            review_id: r.review_id.map(Into::into),
            mr_iid: r.mr_iid,
            head_sha: r.head_sha,
            status: r.status.parse().map_err(corrupt_row)?,
            triggered_by: r.triggered_by.parse().map_err(corrupt_row)?,
            attempts: r.attempts,
            runner_id: r.runner_id,
            error_message: r.error_message,
            created_at: r.created_at,
            started_at: r.started_at,
            completed_at: r.completed_at,
        })
    }
}
