//! `/projects/{id}/learnings`: the lessons sent with a project's prompts, as the
//! team taught them (`/reviewd remember`, the model in a thread, or here), to add,
//! rewrite and delete.

use crate::form::PageForm;
use crate::page_error::PageError;
use crate::render::{self, Chrome};
use crate::session::{Viewer, state};
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use reviewd_domain::model::conversation::Learning;
use reviewd_domain::model::{Permission, Project, ProjectId};
use serde::Deserialize;
use uuid::Uuid;

crate::render::pages!(LearningsPage);

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/projects/{id}/learnings", web::get().to(list))
        .route("/projects/{id}/learnings", web::post().to(change));
}

#[derive(Template)]
#[template(path = "learnings.html")]
struct LearningsPage {
    chrome: Chrome,
    project: Project,
    learnings: Vec<Learning>,
    can_edit: bool,
}

async fn list(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<ProjectId>,
) -> Result<HttpResponse, PageError> {
    let state = state(&req)?;
    let project = state.projects.get(*id).await?;
    let learnings = state.talk.learnings(*id).await?;
    render::page(&LearningsPage {
        chrome: Chrome::new(
            &viewer,
            "projects",
            format!("Learnings of {}", project.full_path),
        ),
        can_edit: viewer.may(Permission::ProjectUpdate),
        project,
        learnings,
    })
}

#[derive(Deserialize)]
struct ChangeForm {
    /// `add`, `edit` or `delete`.
    action: String,
    learning_id: Option<Uuid>,
    #[serde(default)]
    text: String,
}

async fn change(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<ProjectId>,
    form: PageForm<ChangeForm>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ProjectUpdate)?;
    let state = state(&req)?;
    let back = format!("/projects/{id}/learnings");
    let f = form.fields;
    match (f.action.as_str(), f.learning_id) {
        ("add", _) => {
            let author = viewer.principal.user.name.clone();
            let added = state.talk.add_learning(*id, &f.text, &author).await;
            render::after(added, &back, |_| "Learning added.".to_owned())
        }
        ("edit", Some(learning)) => {
            let edited = state.talk.edit_learning(*id, learning, &f.text).await;
            render::after(edited, &back, |_| "Learning saved.".to_owned())
        }
        ("delete", Some(learning)) => {
            let deleted = state.talk.delete_learning(*id, learning).await;
            render::after(deleted, &back, |()| "Learning deleted.".to_owned())
        }
        _ => Err(PageError::BadRequest(
            "action must be add, or edit or delete with a learning".to_owned(),
        )),
    }
}
