//! The stylesheet, the script, the service worker and the icon, embedded in the binary
//! and served with a content hash as their `ETag` (one year's caching for the
//! versioned URLs the layout uses).

use actix_web::http::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, HeaderValue, IF_NONE_MATCH};
use actix_web::{HttpRequest, HttpResponse, web};
use std::sync::LazyLock;

struct Asset {
    path: &'static str,
    content_type: &'static str,
    body: &'static [u8],
}

const ASSETS: &[Asset] = &[
    Asset {
        path: "/static/app.css",
        content_type: "text/css; charset=utf-8",
        body: include_bytes!("../static/app.css"),
    },
    Asset {
        path: "/static/app.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_bytes!("../static/app.js"),
    },
    Asset {
        path: "/static/favicon.svg",
        content_type: "image/svg+xml",
        body: include_bytes!("../static/favicon.svg"),
    },
    // At the root so that it may control every page (a worker's scope is its folder).
    Asset {
        path: "/sw.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_bytes!("../static/sw.js"),
    },
];

/// FNV-1a of every asset: changes whenever one does, so `?v=` busts caches.
pub static VERSION: LazyLock<String> = LazyLock::new(|| {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for asset in ASSETS {
        for b in asset.body {
            hash ^= u64::from(*b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
});

pub fn configure(cfg: &mut web::ServiceConfig) {
    for (index, asset) in ASSETS.iter().enumerate() {
        cfg.route(
            asset.path,
            web::get().to(move |req: HttpRequest| serve(req, index)),
        );
    }
}

async fn serve(req: HttpRequest, index: usize) -> HttpResponse {
    let Some(asset) = ASSETS.get(index) else {
        return HttpResponse::NotFound().finish();
    };
    let etag = format!("\"{}\"", VERSION.as_str());
    if req
        .headers()
        .get(IF_NONE_MATCH)
        .is_some_and(|v| v.as_bytes() == etag.as_bytes())
    {
        return HttpResponse::NotModified().finish();
    }
    let versioned = req.query_string().starts_with("v=");
    let cache = if versioned && asset.path != "/sw.js" {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, HeaderValue::from_static(asset.content_type)))
        .insert_header((CACHE_CONTROL, cache))
        .insert_header((ETAG, etag))
        .body(asset.body)
}
