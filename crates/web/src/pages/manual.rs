//! `/manual`: pick a project, find its open merge request, review it, and watch the
//! task until the review is done.

use crate::form::PageForm;
use crate::page_error::{PageError, describe};
use crate::render::{self, Chrome};
use crate::session::{Viewer, state};
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use reviewd_domain::PageRequest;
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::review_views::TemplateItem;
use reviewd_domain::model::{
    MergeRequest, MrState, Permission, Project, ProjectFilter, ReviewTask,
};
use reviewd_domain::services::{ManualReviewRequest, ServiceError};
use serde::Deserialize;
use uuid::Uuid;

crate::render::pages!(PickPage, TaskPage);
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/manual", web::get().to(pick))
        .route("/manual", web::post().to(trigger))
        .route("/manual/tasks/{id}", web::get().to(task));
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct PickQuery {
    /// Part of a project's name, to find the project.
    project: Option<String>,
    project_id: Option<String>,
    /// Part of a merge request's title or its number.
    search: Option<String>,
}

/// Projects shown to pick from: a search narrows them, so the page stays small with
/// thousands of projects.
const PICK_LIMIT: u32 = 25;

#[derive(Template)]
#[template(path = "manual.html")]
struct PickPage {
    chrome: Chrome,
    /// Enabled projects matching `project_search` (the first ones), when none is picked.
    projects: Vec<Project>,
    /// How many enabled projects match, beyond those shown.
    matching: u64,
    project_search: String,
    project: Option<Project>,
    search: String,
    merge_requests: Vec<MergeRequest>,
    platform_error: Option<String>,
    templates: Vec<TemplateItem>,
}

async fn pick(
    req: HttpRequest,
    viewer: Viewer,
    query: web::Query<PickQuery>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ReviewCreate)?;
    let state = state(&req)?;
    let project_search = query.project.clone().unwrap_or_default();
    let candidates = state
        .projects
        .list(
            &ProjectFilter {
                enabled: Some(true),
                search: Some(project_search.trim().to_owned()).filter(|s| !s.is_empty()),
                ..ProjectFilter::default()
            },
            PageRequest::new(1, PICK_LIMIT, PICK_LIMIT),
        )
        .await?;
    let search = query.search.clone().unwrap_or_default();
    let selected = query
        .project_id
        .as_deref()
        .and_then(|v| v.parse::<ProjectId>().ok());
    let (project, merge_requests, platform_error) = match selected {
        None => (None, Vec::new(), None),
        Some(id) => {
            let project = state.projects.get(id).await?;
            let term = Some(search.trim()).filter(|s| !s.is_empty());
            match state
                .projects
                .merge_requests(id, MrState::Opened, term, PageRequest::new(1, 50, 50))
                .await
            {
                Ok(page) => (Some(project), page.items, None),
                Err(e @ (ServiceError::Platform(_) | ServiceError::BadRequest { .. })) => {
                    (Some(project), Vec::new(), Some(describe(&e)))
                }
                Err(e) => return Err(e.into()),
            }
        }
    };
    render::page(&PickPage {
        chrome: Chrome::new(&viewer, "manual", "Manual review"),
        matching: candidates.total,
        projects: candidates.items,
        project_search,
        project,
        search,
        merge_requests,
        platform_error,
        templates: state.history.templates().await?,
    })
}

#[derive(Deserialize)]
struct TriggerForm {
    project_id: ProjectId,
    mr_iid: i64,
    template_id: Option<String>,
    send_to_platform: Option<String>,
}

async fn trigger(
    req: HttpRequest,
    viewer: Viewer,
    form: PageForm<TriggerForm>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ReviewCreate)?;
    let state = state(&req)?;
    let f = form.fields;
    let template_id = match f.template_id.as_deref().filter(|t| !t.is_empty()) {
        None => None,
        Some(t) => Some(
            t.parse::<Uuid>()
                .map_err(|_| PageError::BadRequest("the template is not valid".to_owned()))?,
        ),
    };
    let request = ManualReviewRequest {
        project_id: f.project_id,
        mr_iid: f.mr_iid,
        send_to_platform: Some(f.send_to_platform.is_some()),
        template_id,
    };
    let back = format!("/manual?projectId={}", f.project_id);
    match state
        .manual_reviews
        .trigger(&viewer.principal, request)
        .await
    {
        Ok(enqueued) => Ok(render::redirect(&format!(
            "/manual/tasks/{}",
            enqueued.task().id
        ))),
        Err(
            err @ (ServiceError::BadRequest { .. }
            | ServiceError::Invalid(_)
            | ServiceError::Platform(_)
            | ServiceError::NotFound(_)),
        ) => Ok(render::redirect_error(&back, &describe(&err))),
        Err(err) => Err(err.into()),
    }
}

#[derive(Template)]
#[template(path = "manual_task.html")]
struct TaskPage {
    chrome: Chrome,
    task: ReviewTask,
    project: Project,
}

async fn task(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, PageError> {
    let state = state(&req)?;
    let task = state.tasks.get(*id).await?;
    let project = state.projects.get(task.project_id).await?;
    render::page(&TaskPage {
        chrome: Chrome::new(&viewer, "manual", format!("Review of !{}", task.mr_iid)),
        task,
        project,
    })
}
