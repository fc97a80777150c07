use reviewd_domain::model::PlatformPage;
use std::future::Future;

/// Upper bound on pages read by "list everything" calls, so a misbehaving server
/// that always announces a next page cannot keep a call running forever.
pub const MAX_PAGES: u32 = 500;

/// Reads pages 1, 2, ... with `fetch` until one says there is no next page (or
/// [`MAX_PAGES`] is reached, which is logged), and returns every item.
///
/// # Errors
/// The first page that fails.
pub async fn collect_pages<T, E, F, Fut>(what: &str, mut fetch: F) -> Result<Vec<T>, E>
where
    F: FnMut(u32) -> Fut,
    Fut: Future<Output = Result<PlatformPage<T>, E>>,
{
    let mut all = Vec::new();
    for page in 1..=MAX_PAGES {
        let batch = fetch(page).await?;
        all.extend(batch.items);
        if !batch.has_next {
            return Ok(all);
        }
    }
    tracing::warn!(what, pages = MAX_PAGES, "http.pagination_truncated");
    Ok(all)
}
