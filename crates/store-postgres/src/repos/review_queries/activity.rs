//! The activity chart: reviews per UTC day and completed reviews per rating (from the
//! daily rollups when the chart starts at a midnight, as the overview's does), and the
//! latest failures.

use crate::PgPool;
use crate::error::map_diesel_error;
use crate::repos::{PgConn, conn, count};
use crate::rows::{DayRow, FailedReviewRow};
use crate::schema::reviews;
use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Date, Text};
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

#[derive(QueryableByName)]
struct RolledRating {
    #[diesel(sql_type = Text)]
    overall_rating: String,
    #[diesel(sql_type = BigInt)]
    reviews: i64,
}

/// Completed reviews per rating from `first` on, from the ratings rollup (migration
/// `rating_rollup`): counting them from the index read each review of the days, 6 ms
/// of the overview's 15 at a million reviews.
async fn rolled_ratings(
    conn: &mut PgConn,
    first: NaiveDate,
) -> Result<Vec<(String, u64)>, RepoError> {
    let rows: Vec<RolledRating> = diesel::sql_query(
        "SELECT overall_rating, sum(reviews)::bigint AS reviews
           FROM review_daily_ratings WHERE day >= $1
          GROUP BY overall_rating HAVING sum(reviews) <> 0 ORDER BY overall_rating",
    )
    .bind::<Date, _>(first)
    .load(conn)
    .await
    .map_err(map_diesel_error)?;
    Ok(rows
        .into_iter()
        .map(|r| (r.overall_rating, count(r.reviews)))
        .collect())
}

/// Completed reviews per rating since `since`, from their rows.
async fn counted_ratings(
    conn: &mut PgConn,
    since: DateTime<Utc>,
) -> Result<Vec<(String, u64)>, RepoError> {
    let ratings: Vec<(Option<String>, i64)> = reviews::table
        .filter(reviews::created_at.ge(since))
        .filter(reviews::status.eq("completed"))
        .group_by(reviews::overall_rating)
        .select((reviews::overall_rating, sql::<BigInt>("count(*)")))
        .order(reviews::overall_rating.asc())
        .load(conn)
        .await
        .map_err(map_diesel_error)?;
    Ok(ratings
        .into_iter()
        .filter_map(|(rating, n)| rating.map(|r| (r, count(n))))
        .collect())
}

pub(super) async fn activity(
    pool: &PgPool,
    since: DateTime<Utc>,
    failures: u32,
) -> Result<ReviewActivity, RepoError> {
    let mut conn = conn(pool).await?;
    let whole_days = since.time() == NaiveTime::MIN;
    let days: Vec<DayCount> = if whole_days {
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
    let ratings = if whole_days {
        rolled_ratings(&mut conn, since.date_naive()).await?
    } else {
        counted_ratings(&mut conn, since).await?
    };
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
        ratings,
        recent_failures: failed.into_iter().map(Into::into).collect(),
    })
}
