//! Page requests and pages, shared by every list port.

/// A 1-indexed page request whose size is already within the endpoint's bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    pub page: u32,
    pub page_size: u32,
}

impl PageRequest {
    /// Builds a request, clamping `page_size` to `1..=max_size` and `page` to at least 1.
    #[must_use]
    pub fn new(page: u32, page_size: u32, max_size: u32) -> Self {
        Self {
            page: page.max(1),
            page_size: page_size.clamp(1, max_size.max(1)),
        }
    }

    /// Rows to skip before this page.
    #[must_use]
    pub fn offset(&self) -> u64 {
        u64::from(self.page - 1) * u64::from(self.page_size)
    }

    #[must_use]
    pub fn limit(&self) -> u64 {
        u64::from(self.page_size)
    }
}

/// One page of items and the size of the whole filtered set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub total: u64,
    pub request: PageRequest,
}

impl<T> Page<T> {
    /// The requested page of a whole filtered and ordered set, for stores that hold
    /// their rows in memory.
    #[must_use]
    pub fn from_all(all: Vec<T>, request: PageRequest) -> Self {
        let total = all.len() as u64;
        let skip = usize::try_from(request.offset()).unwrap_or(usize::MAX);
        let take = usize::try_from(request.limit()).unwrap_or(usize::MAX);
        Page {
            items: all.into_iter().skip(skip).take(take).collect(),
            total,
            request,
        }
    }

    #[must_use]
    pub fn total_pages(&self) -> u64 {
        self.total.div_ceil(self.request.limit())
    }

    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            items: self.items.into_iter().map(f).collect(),
            total: self.total,
            request: self.request,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamps_size_and_page() {
        let r = PageRequest::new(0, 500, 100);
        assert_eq!((r.page, r.page_size), (1, 100));
        assert_eq!(PageRequest::new(3, 0, 100).page_size, 1);
    }

    #[test]
    fn offset_and_total_pages() {
        let r = PageRequest::new(3, 20, 100);
        assert_eq!(r.offset(), 40);
        let page: Page<u8> = Page {
            items: vec![],
            total: 41,
            request: r,
        };
        assert_eq!(page.total_pages(), 3);
    }
}
