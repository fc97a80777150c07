//! The reviewd dashboard: server-rendered pages at `/` on the API's session cookie.
//!
//! Rules of the road: all markup is in `templates/` (askama, compiled and type-checked);
//! handlers in `pages/` only gather data from the domain services of the app's
//! [`AppState`](reviewd_api::state::AppState) and render; every control is a real link
//! or form first, and `static/app.js` only adds live progress, copy buttons and push.
//! Assets are embedded in the binary. Forms carry a token bound to the session
//! (`form.rs`) on top of the app's origin check (`reviewd_api::csrf`).

mod assets;
mod charts;
mod flash;
mod form;
mod format;
mod page_error;
mod pager;
mod pages;
mod render;
mod session;

use actix_web::web;

/// Mounts the dashboard's pages and assets (everything outside `/api`).
pub fn configure(cfg: &mut web::ServiceConfig) {
    assets::configure(cfg);
    pages::configure(cfg);
    // Last: an unknown page is a page too. Unknown `/api` paths never get here (the
    // API's scope answers them with its JSON 404).
    cfg.route("/{tail:.*}", web::get().to(not_found));
}

async fn not_found(
    req: actix_web::HttpRequest,
) -> Result<actix_web::HttpResponse, page_error::PageError> {
    Err(page_error::PageError::NotFound(format!(
        "there is no page at {}",
        req.path()
    )))
}
