//! Previous/next links under a paginated table, keeping the page's filters.

use reviewd_domain::Page;

/// The query string of a page's filters that are set (for pager links and redirects).
pub fn filters_query(filters: &[(&str, Option<&str>)]) -> String {
    let set: Vec<(&str, &str)> = filters
        .iter()
        .filter_map(|(k, v)| v.filter(|v| !v.is_empty()).map(|v| (*k, v)))
        .collect();
    serde_urlencoded::to_string(set).unwrap_or_default()
}

pub struct Pager {
    pub page: u32,
    pub total_pages: u64,
    pub total: u64,
    pub prev: Option<String>,
    pub next: Option<String>,
}

impl Pager {
    /// `query` is the filters' query string (without `page`), possibly empty.
    pub fn new<T>(page: &Page<T>, path: &str, query: &str) -> Self {
        let current = page.request.page;
        let total_pages = page.total_pages();
        let link = |n: u32| {
            if query.is_empty() {
                format!("{path}?page={n}")
            } else {
                format!("{path}?{query}&page={n}")
            }
        };
        Pager {
            page: current,
            total_pages,
            total: page.total,
            prev: (current > 1).then(|| link(current - 1)),
            next: (u64::from(current) < total_pages).then(|| link(current + 1)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reviewd_domain::PageRequest;

    #[test]
    fn only_set_filters_are_kept_and_encoded() {
        assert_eq!(
            filters_query(&[
                ("status", Some("failed")),
                ("projectId", None),
                ("search", Some("a&b c")),
                ("x", Some(""))
            ]),
            "status=failed&search=a%26b+c"
        );
    }

    #[test]
    fn links_keep_the_filters_and_stop_at_the_ends() {
        let page = Page {
            items: vec![(); 10],
            total: 25,
            request: PageRequest::new(2, 10, 100),
        };
        let p = Pager::new(&page, "/reviews", "status=failed");
        assert_eq!(p.prev.as_deref(), Some("/reviews?status=failed&page=1"));
        assert_eq!(p.next.as_deref(), Some("/reviews?status=failed&page=3"));
        let last = Page {
            request: PageRequest::new(3, 10, 100),
            ..page
        };
        assert!(Pager::new(&last, "/r", "").next.is_none());
    }
}
