//! Sums of the AI call log's `cost_usd`: the projects page's spending and the
//! metrics' cost by provider and model. Calls without a price add nothing.

use super::PgConn;
use crate::error::map_diesel_error;
use chrono::{DateTime, Utc};
use diesel::QueryableByName;
use diesel::sql_types::{BigInt, Double, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::RunQueryDsl;
use reviewd_domain::model::ProjectCost;
use reviewd_domain::model::monitoring::AiCallTotal;
use reviewd_domain::ports::RepoError;
use uuid::Uuid;

/// The first instant of the current calendar month, UTC, as PostgreSQL computes it.
const MONTH_START: &str = "date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'";

#[derive(QueryableByName)]
struct Totals {
    #[diesel(sql_type = Double)]
    total: f64,
    #[diesel(sql_type = Double)]
    month: f64,
}

#[derive(QueryableByName)]
struct ProjectRow {
    #[diesel(sql_type = SqlUuid)]
    project_id: Uuid,
    #[diesel(sql_type = Text)]
    project_name: String,
    #[diesel(sql_type = Double)]
    cost_usd: f64,
}

/// Spending ever and this month, and this month's per project (costliest first).
/// A call whose review was deleted still counts in the totals.
pub(crate) async fn project_costs(
    conn: &mut PgConn,
) -> Result<(f64, f64, Vec<ProjectCost>), RepoError> {
    let totals: Totals = diesel::sql_query(format!(
        "SELECT coalesce(sum(cost_usd), 0)::double precision AS total,
                coalesce(sum(cost_usd) FILTER (WHERE created_at >= {MONTH_START}), 0)::double precision AS month
         FROM ai_call_logs"
    ))
    .get_result(conn)
    .await
    .map_err(map_diesel_error)?;
    let rows: Vec<ProjectRow> = diesel::sql_query(format!(
        "SELECT r.project_id, max(r.project_name) AS project_name,
                sum(c.cost_usd)::double precision AS cost_usd
         FROM ai_call_logs c JOIN reviews r ON r.id = c.review_id
         WHERE c.cost_usd IS NOT NULL AND c.created_at >= {MONTH_START}
         GROUP BY r.project_id
         ORDER BY cost_usd DESC, r.project_id"
    ))
    .load(conn)
    .await
    .map_err(map_diesel_error)?;
    let by_project = rows
        .into_iter()
        .map(|r| ProjectCost {
            project_id: r.project_id.into(),
            project_name: r.project_name,
            cost_usd: r.cost_usd,
        })
        .collect();
    Ok((totals.total, totals.month, by_project))
}

#[derive(QueryableByName)]
struct Spent {
    #[diesel(sql_type = Double)]
    spent: f64,
}

/// USD a project's priced calls made since `since` cost: the reviews by the
/// project index, then each review's calls by theirs.
pub(crate) async fn project_cost_since(
    conn: &mut PgConn,
    project_id: Uuid,
    since: DateTime<Utc>,
) -> Result<f64, RepoError> {
    let row: Spent = diesel::sql_query(
        "SELECT coalesce(sum(c.cost_usd), 0)::double precision AS spent
         FROM reviews r JOIN ai_call_logs c ON c.review_id = r.id
         WHERE r.project_id = $1 AND c.created_at >= $2",
    )
    .bind::<SqlUuid, _>(project_id)
    .bind::<Timestamptz, _>(since)
    .get_result(conn)
    .await
    .map_err(map_diesel_error)?;
    Ok(row.spent)
}

#[derive(QueryableByName)]
struct CallsRow {
    #[diesel(sql_type = Text)]
    provider: String,
    #[diesel(sql_type = Text)]
    model: String,
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = BigInt)]
    calls: i64,
    #[diesel(sql_type = BigInt)]
    tokens: i64,
    #[diesel(sql_type = Nullable<Double>)]
    cost_usd: Option<f64>,
}

/// The AI call log in one pass: every call per provider, model and status with
/// its tokens, and the cost of the priced ones per provider and model.
pub(crate) async fn totals_by_model(
    conn: &mut PgConn,
) -> Result<(Vec<AiCallTotal>, Vec<(String, String, f64)>), RepoError> {
    let rows: Vec<CallsRow> = diesel::sql_query(
        "SELECT provider, model, status, count(*) AS calls,
                coalesce(sum(total_tokens), 0)::bigint AS tokens,
                sum(cost_usd)::double precision AS cost_usd
         FROM ai_call_logs GROUP BY provider, model, status ORDER BY provider, model, status",
    )
    .load(conn)
    .await
    .map_err(map_diesel_error)?;
    let count = |n: i64| u64::try_from(n).unwrap_or(0);
    let mut costs = std::collections::BTreeMap::<(String, String), f64>::new();
    for r in &rows {
        if let Some(usd) = r.cost_usd {
            *costs
                .entry((r.provider.clone(), r.model.clone()))
                .or_default() += usd;
        }
    }
    let calls = rows
        .into_iter()
        .map(|r| AiCallTotal {
            provider: r.provider,
            model: r.model,
            status: r.status,
            calls: count(r.calls),
            tokens: count(r.tokens),
        })
        .collect();
    let costs = costs.into_iter().map(|((p, m), usd)| (p, m, usd)).collect();
    Ok((calls, costs))
}
