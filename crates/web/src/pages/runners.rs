//! `/runners`: the review agents, their load and their last word.

use crate::render::{self, Chrome, PageError};
use crate::session::{Viewer, state};
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use reviewd_domain::model::runner::Runner;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/runners", web::get().to(list));
}

#[derive(Template)]
#[template(path = "runners.html")]
struct RunnersPage {
    chrome: Chrome,
    runners: Vec<Runner>,
}

async fn list(req: HttpRequest, viewer: Viewer) -> Result<HttpResponse, PageError> {
    let runners = state(&req)?.runners.list().await?;
    render::page(&RunnersPage {
        chrome: Chrome::new(&viewer, "runners", "Runners"),
        runners,
    })
}
