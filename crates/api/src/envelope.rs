//! The success envelope: `{"data": ...}`, plus `meta.pagination` on paginated lists.
//! The same types describe the envelope in the API document, so the two cannot drift.

use actix_web::HttpResponse;
use reviewd_domain::Page;
use serde::Serialize;
use utoipa::ToSchema;

/// `{"data": T}`: every successful JSON answer.
#[derive(Serialize, ToSchema)]
pub struct Data<T> {
    pub data: T,
}

/// `{"items": [T]}`: the `data` of a paginated list.
#[derive(Serialize, ToSchema)]
pub struct Items<T> {
    pub items: Vec<T>,
}

/// `{"data": {"items": [T]}, "meta": {"pagination": {...}}}`.
#[derive(Serialize, ToSchema)]
pub struct Paginated<T> {
    pub data: Items<T>,
    pub meta: PageMeta,
}

#[derive(Serialize, ToSchema)]
pub struct PageMeta {
    pub pagination: Pagination,
}

/// Where a paginated list stands.
#[derive(Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Pagination {
    pub page: u32,
    pub page_size: u32,
    pub total: u64,
    pub total_pages: u64,
}

impl Pagination {
    pub fn of<T>(page: &Page<T>) -> Self {
        Self {
            page: page.request.page,
            page_size: page.request.page_size,
            total: page.total,
            total_pages: page.total_pages(),
        }
    }
}

/// `{"success": true}`: an action that has nothing else to say.
#[derive(Serialize, ToSchema)]
pub struct Success {
    pub success: bool,
}

impl Success {
    pub const YES: Self = Self { success: true };
}

/// `200 {"data": data}`.
pub fn ok(data: impl Serialize) -> HttpResponse {
    HttpResponse::Ok().json(Data { data })
}

/// `201 {"data": data}`.
pub fn created(data: impl Serialize) -> HttpResponse {
    HttpResponse::Created().json(Data { data })
}

/// `200 {"data": {"success": true}}`.
pub fn success() -> HttpResponse {
    ok(Success::YES)
}

/// `200 {"data": {"items": [...]}, "meta": {"pagination": {...}}}`.
pub fn paginated<T, D: Serialize>(page: Page<T>, to_dto: impl FnMut(T) -> D) -> HttpResponse {
    let pagination = Pagination::of(&page);
    let items: Vec<D> = page.items.into_iter().map(to_dto).collect();
    HttpResponse::Ok().json(Paginated {
        data: Items { items },
        meta: PageMeta { pagination },
    })
}
