//! The filtered review list, one page of it, and its stats over the whole filter
//! (from the daily rollups when the filter names no project, see `rollup`).

use super::rollup;
use crate::PgPool;
use crate::error::map_diesel_error;
use crate::repos::{PgConn, conn, contains_pattern, paginate_with_total};
use crate::rows::{DayCostRow, ListRow, StatsRow};
use crate::schema::{ai_call_logs, reviews};
use diesel::dsl::sql;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sql_types::{Date, Timestamptz};
use diesel_async::RunQueryDsl;
use reviewd_domain::model::review_views::{
    COST_DAYS, DayCost, ReviewFilter, ReviewListItem, ReviewStats,
};
use reviewd_domain::ports::RepoError;
use reviewd_domain::{Page, PageRequest};

fn filtered(f: &ReviewFilter) -> reviews::BoxedQuery<'static, Pg> {
    let mut q = reviews::table.into_boxed();
    if let Some(p) = f.project_id {
        q = q.filter(reviews::project_id.eq(p.0));
    }
    if let Some(search) = f.project_search.as_deref().filter(|s| !s.is_empty()) {
        q = q.filter(reviews::project_name.ilike(contains_pattern(search.trim())));
    }
    if let Some(s) = &f.status {
        q = q.filter(reviews::status.eq(s.as_str()));
    }
    if let Some(t) = &f.triggered_by {
        q = q.filter(reviews::triggered_by.eq(t.as_str()));
    }
    if let Some(start) = f.start_date {
        q = q.filter(reviews::created_at.ge(start));
    }
    if let Some(end) = f.end_date {
        q = q.filter(reviews::created_at.le(end));
    }
    q
}

/// USD per UTC day of the priced calls of the filtered reviews, over the last
/// [`COST_DAYS`] days by the database's clock (as the projects' "this month" is),
/// in one query that the `(review_id, created_at)` index serves.
async fn cost_by_day(conn: &mut PgConn, f: &ReviewFilter) -> Result<Vec<DayCost>, RepoError> {
    // The first instant of the oldest day shown, UTC.
    let first_day = format!(
        "date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '{} days'",
        COST_DAYS - 1
    );
    let rows: Vec<DayCostRow> = ai_call_logs::table
        .filter(ai_call_logs::review_id.eq_any(filtered(f).select(reviews::id.nullable())))
        .filter(ai_call_logs::cost_usd.is_not_null())
        .filter(ai_call_logs::created_at.ge(sql::<Timestamptz>(&first_day)))
        .select(DayCostRow::as_select())
        .group_by(sql::<Date>("1"))
        .order(sql::<Date>("1"))
        .load(conn)
        .await
        .map_err(map_diesel_error)?;
    Ok(rows.into_iter().map(Into::into).collect())
}

pub(super) async fn list(
    pool: &PgPool,
    f: &ReviewFilter,
    page: PageRequest,
) -> Result<(Page<ReviewListItem>, ReviewStats), RepoError> {
    let mut conn = conn(pool).await?;
    // The stats' total is the page's: the rollups count the same filtered set exactly.
    let stats = if rollup::serves(f) {
        ReviewStats {
            cost_by_day: rollup::cost_by_day(&mut conn, f).await?,
            ..rollup::stats(&mut conn, f).await?
        }
    } else {
        ReviewStats {
            cost_by_day: cost_by_day(&mut conn, f).await?,
            ..filtered(f)
                .select(StatsRow::as_select())
                .get_result::<StatsRow>(&mut conn)
                .await
                .map_err(map_diesel_error)?
                .into()
        }
    };
    let rows = filtered(f)
        .select(ListRow::as_select())
        .order((reviews::created_at.desc(), reviews::id.desc()));
    let page =
        paginate_with_total(&mut conn, page, stats.total, rows, ReviewListItem::try_from).await?;
    Ok((page, stats))
}
