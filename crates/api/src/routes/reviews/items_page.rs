//! The limit/offset page the lists of a review's comments and AI calls answer with.

use crate::envelope::Items;
use serde::Serialize;
use utoipa::ToSchema;

/// Where a limit/offset list stands.
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewItemsPagination {
    /// The most items answered (after clamping to the endpoint's maximum).
    pub limit: u32,
    /// How many items were skipped.
    pub offset: u64,
    /// How many items match in all.
    pub total: u64,
}

#[derive(Serialize, ToSchema)]
pub(super) struct ReviewItemsMeta {
    pub pagination: ReviewItemsPagination,
}

/// `{"data": {"items": [T]}, "meta": {"pagination": {"limit", "offset", "total"}}}`: a
/// review's comments or AI calls, by limit and offset.
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewItemsPage<T> {
    pub data: Items<T>,
    pub meta: ReviewItemsMeta,
}

impl<T> ReviewItemsPage<T> {
    pub fn new(items: Vec<T>, limit: u32, offset: u64, total: u64) -> Self {
        ReviewItemsPage {
            data: Items { items },
            meta: ReviewItemsMeta {
                pagination: ReviewItemsPagination {
                    limit,
                    offset,
                    total,
                },
            },
        }
    }
}
