//! The filtered review list, one page of it, and its stats over the whole filter.

use crate::PgPool;
use crate::error::map_diesel_error;
use crate::repos::{conn, contains_pattern, paginate_with_total};
use crate::rows::{ListRow, StatsRow};
use crate::schema::reviews;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use reviewd_domain::model::review_views::{ReviewFilter, ReviewListItem, ReviewStats};
use reviewd_domain::ports::RepoError;
use reviewd_domain::{Page, PageRequest};

fn filtered(f: &ReviewFilter) -> reviews::BoxedQuery<'static, Pg> {
    let mut q = reviews::table.into_boxed();
    if let Some(p) = f.project_id {
        q = q.filter(reviews::project_id.eq(p));
    }
    if let Some(search) = f.project_search.as_deref().filter(|s| !s.is_empty()) {
        q = q.filter(reviews::project_name.ilike(contains_pattern(search.trim())));
    }
    if let Some(s) = &f.status {
        q = q.filter(reviews::status.eq(s.clone()));
    }
    if let Some(t) = &f.triggered_by {
        q = q.filter(reviews::triggered_by.eq(t.clone()));
    }
    if let Some(start) = f.start_date {
        q = q.filter(reviews::created_at.ge(start));
    }
    if let Some(end) = f.end_date {
        q = q.filter(reviews::created_at.le(end));
    }
    q
}

pub(super) async fn list(
    pool: &PgPool,
    f: &ReviewFilter,
    page: PageRequest,
) -> Result<(Page<ReviewListItem>, ReviewStats), RepoError> {
    let mut conn = conn(pool).await?;
    // The stats count the filtered set in the same pass, so their total is the page's.
    let stats: ReviewStats = filtered(f)
        .select(StatsRow::as_select())
        .get_result::<StatsRow>(&mut conn)
        .await
        .map_err(map_diesel_error)?
        .into();
    let rows = filtered(f)
        .select(ListRow::as_select())
        .order((reviews::created_at.desc(), reviews::id.desc()));
    let page = paginate_with_total(
        &mut conn,
        page,
        stats.total,
        rows,
        |r: ListRow| Ok(r.into()),
    )
    .await?;
    Ok((page, stats))
}
