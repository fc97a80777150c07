//! The success envelope: `{"data": ...}`, plus `meta.pagination` on paginated lists.

use actix_web::HttpResponse;
use reviewd_domain::Page;
use serde::Serialize;
use serde_json::{Value, json};

/// `200 {"data": data}`.
pub fn ok(data: impl Serialize) -> HttpResponse {
    HttpResponse::Ok().json(json!({ "data": data }))
}

/// `201 {"data": data}`.
pub fn created(data: impl Serialize) -> HttpResponse {
    HttpResponse::Created().json(json!({ "data": data }))
}

/// `200 {"data": {"items": [...]}, "meta": {"pagination": {...}}}`.
pub fn paginated<T, D: Serialize>(page: Page<T>, to_dto: impl FnMut(T) -> D) -> HttpResponse {
    let meta = pagination_meta(&page);
    let items: Vec<D> = page.items.into_iter().map(to_dto).collect();
    HttpResponse::Ok().json(json!({ "data": { "items": items }, "meta": { "pagination": meta } }))
}

/// `{page, pageSize, total, totalPages}`.
pub fn pagination_meta<T>(page: &Page<T>) -> Value {
    json!({
        "page": page.request.page,
        "pageSize": page.request.page_size,
        "total": page.total,
        "totalPages": page.total_pages(),
    })
}
