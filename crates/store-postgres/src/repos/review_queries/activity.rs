//! The activity chart: reviews per UTC day (from the daily rollup when the chart
//! starts at a midnight, as the overview's does), ratings, and the latest failures.

use crate::PgPool;
use crate::error::map_diesel_error;
use crate::repos::{PgConn, conn, count};
use crate::rows::{DayRow, FailedReviewRow};
use crate::schema::reviews;
use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Date};
use diesel_async::RunQueryDsl;
use reviewd_domain::model::review_views::{DayCount, ReviewActivity};
use reviewd_domain::ports::RepoError;

#[derive(QueryableByName)]
struct RolledDay {
    #[diesel(sql_type = Date)]
    day: NaiveDate,
    #[diesel(sql_type = BigInt)]
    total: i64,
    #[diesel(sql_type = BigInt)]
    completed: i64,
    #[diesel(sql_type = BigInt)]
    failed: i64,
}

/// Reviews per UTC day from `first` on, from the daily rollup (exact, as the list's
/// stats): a few dozen rows a day where counting the reviews read each of them
/// (27–65 ms for the 14 days of the overview at a million reviews).
async fn rolled_days(conn: &mut PgConn, first: NaiveDate) -> Result<Vec<DayCount>, RepoError> {
    let rows: Vec<RolledDay> = diesel::sql_query(
        "SELECT day, sum(reviews)::bigint AS total,
                coalesce(sum(reviews) FILTER (WHERE status = 'completed'), 0)::bigint AS completed,
                coalesce(sum(reviews) FILTER (WHERE status = 'failed'), 0)::bigint AS failed
           FROM review_daily_stats WHERE day >= $1
          GROUP BY day HAVING sum(reviews) <> 0 ORDER BY day",
    )
    .bind::<Date, _>(first)
    .load(conn)
    .await
    .map_err(map_diesel_error)?;
    Ok(rows
        .into_iter()
        .map(|r| DayCount {
            day: r.day,
            total: count(r.total),
            completed: count(r.completed),
            failed: count(r.failed),
        })
        .collect())
}

pub(super) async fn activity(
    pool: &PgPool,
    since: DateTime<Utc>,
    failures: u32,
) -> Result<ReviewActivity, RepoError> {
    let mut conn = conn(pool).await?;
    let days: Vec<DayCount> = if since.time() == NaiveTime::MIN {
        rolled_days(&mut conn, since.date_naive()).await?
    } else {
        reviews::table
            .filter(reviews::created_at.ge(since))
            .select(DayRow::as_select())
            .group_by(sql::<Date>("1"))
            .order(sql::<Date>("1"))
            .load::<DayRow>(&mut conn)
            .await
            .map_err(map_diesel_error)?
            .into_iter()
            .map(Into::into)
            .collect()
    };
    let ratings: Vec<(Option<String>, i64)> = reviews::table
        .filter(reviews::created_at.ge(since))
        .filter(reviews::status.eq("completed"))
        .group_by(reviews::overall_rating)
        .select((reviews::overall_rating, sql::<BigInt>("count(*)")))
        .order(reviews::overall_rating.asc())
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
    let failed: Vec<FailedReviewRow> = reviews::table
        .filter(reviews::status.eq("failed"))
        .select(FailedReviewRow::as_select())
        .order(reviews::created_at.desc())
        .limit(i64::from(failures))
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
    Ok(ReviewActivity {
        days,
        ratings: ratings
            .into_iter()
            .filter_map(|(rating, n)| rating.map(|r| (r, count(n))))
            .collect(),
        recent_failures: failed.into_iter().map(Into::into).collect(),
    })
}
