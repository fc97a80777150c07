//! The activity chart: reviews per UTC day, ratings, and the latest failures.

use crate::PgPool;
use crate::error::map_diesel_error;
use crate::repos::{conn, count};
use crate::rows::{DayRow, FailedReviewRow};
use crate::schema::reviews;
use chrono::{DateTime, Utc};
use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Date};
use diesel_async::RunQueryDsl;
use reviewd_domain::model::review_views::ReviewActivity;
use reviewd_domain::ports::RepoError;

pub(super) async fn activity(
    pool: &PgPool,
    since: DateTime<Utc>,
    failures: u32,
) -> Result<ReviewActivity, RepoError> {
    let mut conn = conn(pool).await?;
    let since_created = reviews::created_at.ge(since);
    let days: Vec<DayRow> = reviews::table
        .filter(since_created)
        .select(DayRow::as_select())
        .group_by(sql::<Date>("1"))
        .order(sql::<Date>("1"))
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
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
        days: days.into_iter().map(Into::into).collect(),
        ratings: ratings
            .into_iter()
            .filter_map(|(rating, n)| rating.map(|r| (r, count(n))))
            .collect(),
        recent_failures: failed.into_iter().map(Into::into).collect(),
    })
}
