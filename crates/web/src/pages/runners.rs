//! `/runners`: the review agents, their load and their last word; a runner's tasks.

use crate::page_error::PageError;
use crate::pager::Pager;
use crate::render::{self, Chrome};
use crate::session::{Viewer, state};
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use reviewd_domain::PageRequest;
use reviewd_domain::model::PipelineEntry;
use reviewd_domain::model::runner::Runner;
use serde::Deserialize;

crate::render::pages!(RunnersPage, RunnerPage);
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/runners", web::get().to(list))
        .route("/runners/{id}", web::get().to(detail));
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

#[derive(Template)]
#[template(path = "runner.html")]
struct RunnerPage {
    chrome: Chrome,
    runner: Runner,
    tasks: Vec<PipelineEntry>,
    pager: Pager,
}

#[derive(Deserialize)]
struct PageQuery {
    page: Option<u32>,
}

async fn detail(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<String>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, PageError> {
    let state = state(&req)?;
    let runner = state.runners.get(&id).await?;
    let tasks = state
        .projects
        .runner_pipelines(
            &runner.id,
            PageRequest::new(query.page.unwrap_or(1), 20, 20),
        )
        .await?;
    let pager = Pager::new(
        &tasks,
        &format!("/runners/{}", crate::format::url_encode(&runner.id)),
        "",
    );
    render::page(&RunnerPage {
        chrome: Chrome::new(&viewer, "runners", format!("Runner {}", runner.name)),
        runner,
        tasks: tasks.items,
        pager,
    })
}
