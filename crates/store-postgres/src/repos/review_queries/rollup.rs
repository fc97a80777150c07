//! The list's stats and cost chart read from the daily rollups (`review_daily_stats`,
//! `ai_cost_daily`, kept by the triggers of migration `list_stats`) for the whole days
//! of the filter, plus the rows of its partial edge days. The rollups are keyed by
//! day, status and trigger, and per project (`review_project_daily_stats`,
//! `ai_cost_project_daily`, migration `project_rollups`) for a filter on one.

use super::days::{end_day, first_day, outside, whole_days};
use crate::error::map_diesel_error;
use crate::repos::{PgConn, count};
use chrono::NaiveTime;
use diesel::QueryableByName;
use diesel::sql_types::{BigInt, Bool, Date, Double, Nullable, Text, Timestamptz};
use diesel_async::RunQueryDsl;
use reviewd_domain::model::review_views::{COST_DAYS, DayCost, ReviewFilter, ReviewStats};
use reviewd_domain::ports::RepoError;

/// Whether the rollups hold what the filter asks: they know projects by id, not by
/// the name a search matches.
pub(super) fn serves(f: &ReviewFilter) -> bool {
    f.project_search.as_deref().is_none_or(str::is_empty)
}

/// The rollup tables for the filter (the whole list's, or the projects'), and the
/// condition on the rollup's rows (aliased `d`) that picks the project ($7).
fn rollups(f: &ReviewFilter) -> (&'static str, &'static str, &'static str) {
    if f.project_id.is_some() {
        (
            "review_project_daily_stats",
            "ai_cost_project_daily",
            "AND d.project_id = $7",
        )
    } else {
        ("review_daily_stats", "ai_cost_daily", "")
    }
}

/// Whether the filter has partial days, whose reviews are read from their rows: a
/// start after midnight, or an end (its own day is read up to it). Without, the
/// rows' branch of a query is cut at planning ($8 false): the planner could not
/// tell that `outside` matches nothing, and read a week of reviews for nothing.
fn has_partial_days(f: &ReviewFilter) -> bool {
    f.start_date.is_some_and(|s| s.time() != NaiveTime::MIN) || f.end_date.is_some()
}

/// The filter's conditions on `reviews` (aliased `alias`) as SQL over the bound
/// parameters $1 status, $2 triggered_by, $5 start, $6 end (inclusive), $7 project.
fn review_conditions(alias: &str) -> String {
    format!(
        "($1::text IS NULL OR {alias}.status = $1) AND ($2::text IS NULL OR {alias}.triggered_by = $2) \
         AND ($5::timestamptz IS NULL OR {alias}.created_at >= $5) \
         AND ($6::timestamptz IS NULL OR {alias}.created_at <= $6) \
         AND ($7::uuid IS NULL OR {alias}.project_id = $7) AND {}",
        outside(&format!("{alias}.created_at"), "$3", "$4")
    )
}

#[derive(QueryableByName)]
struct StatsRow {
    #[diesel(sql_type = BigInt)]
    total: i64,
    #[diesel(sql_type = BigInt)]
    pending: i64,
    #[diesel(sql_type = BigInt)]
    completed: i64,
    #[diesel(sql_type = BigInt)]
    failed: i64,
    #[diesel(sql_type = BigInt)]
    comments: i64,
    #[diesel(sql_type = Nullable<Double>)]
    average: Option<f64>,
    #[diesel(sql_type = Double)]
    cost: f64,
}

#[derive(QueryableByName)]
struct DayCostRow {
    #[diesel(sql_type = Date)]
    day: chrono::NaiveDate,
    #[diesel(sql_type = Double)]
    cost_usd: f64,
}

/// `query` with the filter's parameters bound: $1 status, $2 triggered_by, $3 and
/// $4 the whole days, $5 and $6 the filter's bounds, $7 the project, $8 whether the
/// filter has partial days.
macro_rules! bind_filter {
    ($query:expr, $f:expr) => {{
        let days = whole_days($f.start_date, $f.end_date);
        diesel::sql_query($query)
            .bind::<Nullable<Text>, _>($f.status.map(|s| s.as_str()))
            .bind::<Nullable<Text>, _>($f.triggered_by.map(|t| t.as_str()))
            .bind::<Nullable<Date>, _>(days.first)
            .bind::<Nullable<Date>, _>(days.end)
            .bind::<Nullable<Timestamptz>, _>($f.start_date)
            .bind::<Nullable<Timestamptz>, _>($f.end_date)
            .bind::<Nullable<diesel::sql_types::Uuid>, _>($f.project_id.map(uuid::Uuid::from))
            .bind::<Bool, _>(has_partial_days($f))
    }};
}

pub(super) async fn stats(conn: &mut PgConn, f: &ReviewFilter) -> Result<ReviewStats, RepoError> {
    let (table, _, project) = rollups(f);
    // The average as avg(score) computes it: an exact sum over a count, in numeric.
    let query = format!(
        "SELECT coalesce(sum(n), 0)::bigint AS total,
                coalesce(sum(n) FILTER (WHERE status = 'pending'), 0)::bigint AS pending,
                coalesce(sum(n) FILTER (WHERE status = 'completed'), 0)::bigint AS completed,
                coalesce(sum(n) FILTER (WHERE status = 'failed'), 0)::bigint AS failed,
                coalesce(sum(comments), 0)::bigint AS comments,
                (sum(score_sum)::numeric / nullif(sum(scored), 0))::double precision AS average,
                coalesce(sum(cost), 0)::double precision AS cost
         FROM (SELECT status, reviews AS n, comments, score_sum, scored, cost_usd AS cost
               FROM {table} d
               WHERE ($1::text IS NULL OR d.status = $1)
                 AND ($2::text IS NULL OR d.triggered_by = $2) {project}
                 AND d.day >= {first} AND d.day < {end}
               UNION ALL
               SELECT status, 1, comment_count, coalesce(score, 0), (score IS NOT NULL)::int,
                      coalesce(cost_usd, 0)
               FROM reviews r WHERE $8 AND {rows}) s",
        first = first_day("$3"),
        end = end_day("$4"),
        rows = review_conditions("r"),
    );
    let row: StatsRow = bind_filter!(query, f)
        .get_result(conn)
        .await
        .map_err(map_diesel_error)?;
    Ok(ReviewStats {
        total: count(row.total),
        pending: count(row.pending),
        completed: count(row.completed),
        failed: count(row.failed),
        total_comments: count(row.comments),
        average_score: row.average.map(|a| (a * 10.0).round() / 10.0),
        total_cost_usd: row.cost,
        cost_by_day: Vec::new(),
    })
}

/// USD per UTC day of the calls over the last [`COST_DAYS`] days, as
/// `list::cost_by_day` counts it from the rows. A day shows when it had a priced call.
pub(super) async fn cost_by_day(
    conn: &mut PgConn,
    f: &ReviewFilter,
) -> Result<Vec<DayCost>, RepoError> {
    let (_, table, project) = rollups(f);
    let first_cost_day = format!(
        "(date_trunc('day', now() AT TIME ZONE 'UTC') - interval '{} days')",
        COST_DAYS - 1
    );
    let query = format!(
        "SELECT day, sum(cost)::double precision AS cost_usd
         FROM (SELECT day, calls, cost_usd AS cost
               FROM {table} d
               WHERE ($1::text IS NULL OR d.status = $1)
                 AND ($2::text IS NULL OR d.triggered_by = $2) {project}
                 AND d.review_day >= {first} AND d.review_day < {end}
                 AND d.day >= {first_cost_day}::date
               UNION ALL
               SELECT (c.created_at AT TIME ZONE 'UTC')::date, 1, c.cost_usd
               FROM reviews r JOIN ai_call_logs c ON c.review_id = r.id
               WHERE $8 AND {rows} AND c.cost_usd IS NOT NULL
                 AND c.created_at >= {first_cost_day} AT TIME ZONE 'UTC') s
         GROUP BY day HAVING sum(calls) > 0 ORDER BY day",
        first = first_day("$3"),
        end = end_day("$4"),
        rows = review_conditions("r"),
    );
    let rows: Vec<DayCostRow> = bind_filter!(query, f)
        .load(conn)
        .await
        .map_err(map_diesel_error)?;
    Ok(rows
        .into_iter()
        .map(|r| DayCost {
            date: r.day,
            cost_usd: r.cost_usd,
        })
        .collect())
}
