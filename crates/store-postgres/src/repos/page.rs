//! Pagination: one window of an ordered query, each row converted, and the size of
//! the whole set, as the domain's `Page` (or a bare `(items, total)` for the views
//! that take a raw limit and offset).
//!
//! Two statements, a count and the window, rather than diesel's guide's single
//! `count(*) OVER ()`: a page past the end still reports the set's size, as the
//! ports promise.
//!
//! Each returns `impl Future + Send`, proven here once for any query: left to the
//! callers (async-trait methods, whose futures must be `Send`), rustc cannot prove
//! it for boxed queries that borrow their filter values ("not general enough").

use crate::error::map_diesel_error;
use crate::rows::count;
use diesel::dsl::{Limit, Offset};
use diesel::query_dsl::methods::{LimitDsl, OffsetDsl};
use diesel_async::methods::LoadQuery;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use reviewd_domain::ports::RepoError;
use reviewd_domain::{Page, PageRequest};
use std::future::Future;

/// How many rows to load and how many to skip first, as the `i64`s diesel's
/// `limit`/`offset` take.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Window {
    limit: i64,
    offset: i64,
}

impl Window {
    pub(crate) fn new(limit: u64, offset: u64) -> Self {
        Self {
            limit: i64::try_from(limit).unwrap_or(i64::MAX),
            offset: i64::try_from(offset).unwrap_or(i64::MAX),
        }
    }
}

impl From<PageRequest> for Window {
    fn from(page: PageRequest) -> Self {
        Self::new(page.limit(), page.offset())
    }
}

/// The requested page of `rows` (filtered and ordered by the caller), each row
/// converted, with the total that `count_query` (the same filter, counted) finds.
#[expect(
    clippy::manual_async_fn,
    reason = "the `Send` bound is the point: see the module doc"
)]
pub(crate) fn paginate<'q, C, Q, R, T>(
    conn: &mut AsyncPgConnection,
    page: PageRequest,
    count_query: C,
    rows: Q,
    convert: impl FnMut(R) -> Result<T, RepoError> + Send,
) -> impl Future<Output = Result<Page<T>, RepoError>> + Send
where
    C: LoadQuery<'q, AsyncPgConnection, i64> + Send + 'q,
    Q: LimitDsl + Send,
    Limit<Q>: OffsetDsl,
    Offset<Limit<Q>>: LoadQuery<'q, AsyncPgConnection, R> + 'q,
    R: Send,
    T: Send,
{
    async move {
        let (items, total) = window(conn, page.into(), count_query, rows, convert).await?;
        Ok(Page {
            items,
            total,
            request: page,
        })
    }
}

/// [`paginate`] for a caller that already has the total (counted in one pass with
/// other figures).
#[expect(
    clippy::manual_async_fn,
    reason = "the `Send` bound is the point: see the module doc"
)]
pub(crate) fn paginate_with_total<'q, Q, R, T>(
    conn: &mut AsyncPgConnection,
    page: PageRequest,
    total: u64,
    rows: Q,
    convert: impl FnMut(R) -> Result<T, RepoError> + Send,
) -> impl Future<Output = Result<Page<T>, RepoError>> + Send
where
    Q: LimitDsl + Send,
    Limit<Q>: OffsetDsl,
    Offset<Limit<Q>>: LoadQuery<'q, AsyncPgConnection, R> + 'q,
    R: Send,
    T: Send,
{
    async move {
        let items = load(conn, page.into(), rows, convert).await?;
        Ok(Page {
            items,
            total,
            request: page,
        })
    }
}

/// The `window` of `rows`, each row converted, and the total that `count_query` finds.
#[expect(
    clippy::manual_async_fn,
    reason = "the `Send` bound is the point: see the module doc"
)]
pub(crate) fn window<'q, C, Q, R, T>(
    conn: &mut AsyncPgConnection,
    window: Window,
    count_query: C,
    rows: Q,
    convert: impl FnMut(R) -> Result<T, RepoError> + Send,
) -> impl Future<Output = Result<(Vec<T>, u64), RepoError>> + Send
where
    C: LoadQuery<'q, AsyncPgConnection, i64> + Send + 'q,
    Q: LimitDsl + Send,
    Limit<Q>: OffsetDsl,
    Offset<Limit<Q>>: LoadQuery<'q, AsyncPgConnection, R> + 'q,
    R: Send,
    T: Send,
{
    async move {
        let total: i64 = count_query
            .get_result(conn)
            .await
            .map_err(map_diesel_error)?;
        let items = load(conn, window, rows, convert).await?;
        Ok((items, count(total)))
    }
}

#[expect(
    clippy::manual_async_fn,
    reason = "the `Send` bound is the point: see the module doc"
)]
fn load<'q, Q, R, T>(
    conn: &mut AsyncPgConnection,
    window: Window,
    rows: Q,
    convert: impl FnMut(R) -> Result<T, RepoError> + Send,
) -> impl Future<Output = Result<Vec<T>, RepoError>> + Send
where
    Q: LimitDsl + Send,
    Limit<Q>: OffsetDsl,
    Offset<Limit<Q>>: LoadQuery<'q, AsyncPgConnection, R> + 'q,
    R: Send,
    T: Send,
{
    async move {
        let rows: Vec<R> = OffsetDsl::offset(LimitDsl::limit(rows, window.limit), window.offset)
            .load(conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter().map(convert).collect()
    }
}
