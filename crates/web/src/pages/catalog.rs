//! `/catalog`: review templates (the prompt's frame) and review rules (instructions
//! added for matching files, in priority order). Changing them is for admins, as in the API.

use crate::form::{NoFields, PageForm};
use crate::page_error::PageError;
use crate::render::{self, Chrome};
use crate::session::{Viewer, state};
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use reviewd_domain::model::Project;
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::review_views::{RuleItem, TemplateItem};
use reviewd_domain::ports::{RuleChanges, TemplateChanges};
use serde::Deserialize;
use uuid::Uuid;

crate::render::pages!(CatalogPage, TemplateEditPage);
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/catalog", web::get().to(show))
        .route("/catalog/templates", web::post().to(create_template))
        .route("/catalog/templates/{id}", web::get().to(edit_template))
        .route("/catalog/templates/{id}", web::post().to(update_template))
        .route(
            "/catalog/templates/{id}/default",
            web::post().to(make_default),
        )
        .route("/catalog/rules", web::post().to(create_rule))
        .route("/catalog/rules/{id}", web::post().to(update_rule));
}

#[derive(Template)]
#[template(path = "catalog.html")]
struct CatalogPage {
    chrome: Chrome,
    templates: Vec<TemplateItem>,
    rules: Vec<RuleItem>,
    projects: Vec<Project>,
}

impl CatalogPage {
    fn project_name(&self, id: &Option<ProjectId>) -> String {
        id.and_then(|id| self.projects.iter().find(|p| p.id == id))
            .map_or_else(|| "global".to_owned(), |p| p.full_path.clone())
    }
}

async fn show(req: HttpRequest, viewer: Viewer) -> Result<HttpResponse, PageError> {
    let state = state(&req)?;
    let mut rules = state.history.rules().await?;
    rules.sort_by_key(|r| std::cmp::Reverse(r.priority));
    render::page(&CatalogPage {
        chrome: Chrome::new(&viewer, "catalog", "Templates and rules"),
        templates: state.history.templates().await?,
        rules,
        projects: state.projects.list_all().await?,
    })
}

#[derive(Deserialize)]
struct TemplateForm {
    name: String,
    #[serde(default)]
    description: String,
    content: String,
    is_default: Option<String>,
    /// Empty for a global template.
    project_id: Option<String>,
}

impl TemplateForm {
    fn project(&self) -> Result<Option<ProjectId>, PageError> {
        match self.project_id.as_deref().filter(|p| !p.is_empty()) {
            None => Ok(None),
            Some(p) => p
                .parse()
                .map(Some)
                .map_err(|_| PageError::BadRequest("unknown project".to_owned())),
        }
    }

    fn changes(self) -> Result<TemplateChanges, PageError> {
        let project = self.project()?;
        Ok(TemplateChanges {
            name: Some(self.name.trim().to_owned()),
            description: Some(Some(self.description.trim().to_owned()).filter(|d| !d.is_empty())),
            content: Some(self.content),
            is_default: Some(self.is_default.is_some()),
            project_id: Some(project),
        })
    }
}

async fn create_template(
    req: HttpRequest,
    viewer: Viewer,
    form: PageForm<TemplateForm>,
) -> Result<HttpResponse, PageError> {
    viewer.require_admin()?;
    let changes = form.fields.changes()?;
    render::after(
        state(&req)?.catalog.create_template(changes).await,
        "/catalog",
        |_| "Template created.".to_owned(),
    )
}

#[derive(Template)]
#[template(path = "template_form.html")]
struct TemplateEditPage {
    chrome: Chrome,
    template: TemplateItem,
    content: String,
    projects: Vec<Project>,
}

async fn edit_template(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, PageError> {
    viewer.require_admin()?;
    let state = state(&req)?;
    let template = state
        .history
        .templates()
        .await?
        .into_iter()
        .find(|t| t.id == *id)
        .ok_or_else(|| PageError::NotFound("template not found".to_owned()))?;
    render::page(&TemplateEditPage {
        chrome: Chrome::new(&viewer, "catalog", format!("Template {}", template.name)),
        content: state.catalog.template_content(*id).await?,
        template,
        projects: state.projects.list_all().await?,
    })
}

async fn update_template(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<Uuid>,
    form: PageForm<TemplateForm>,
) -> Result<HttpResponse, PageError> {
    viewer.require_admin()?;
    let changes = form.fields.changes()?;
    render::after(
        state(&req)?.catalog.update_template(*id, changes).await,
        "/catalog",
        |_| "Template saved.".to_owned(),
    )
}

async fn make_default(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<Uuid>,
    _form: PageForm<NoFields>,
) -> Result<HttpResponse, PageError> {
    viewer.require_admin()?;
    let changes = TemplateChanges {
        is_default: Some(true),
        ..TemplateChanges::default()
    };
    render::after(
        state(&req)?.catalog.update_template(*id, changes).await,
        "/catalog",
        |_| "Default template changed.".to_owned(),
    )
}

fn patterns(value: &str) -> Vec<String> {
    value
        .split(['\n', ','])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

#[derive(Deserialize)]
struct RuleForm {
    rule_name: String,
    instructions: String,
    #[serde(default)]
    file_path_patterns: String,
    #[serde(default)]
    file_type_patterns: String,
    #[serde(default)]
    priority: String,
}

fn priority(value: &str) -> Result<i32, PageError> {
    let value = value.trim();
    if value.is_empty() {
        return Ok(0);
    }
    value
        .parse()
        .map_err(|_| PageError::BadRequest("priority must be a whole number".to_owned()))
}

async fn create_rule(
    req: HttpRequest,
    viewer: Viewer,
    form: PageForm<RuleForm>,
) -> Result<HttpResponse, PageError> {
    viewer.require_admin()?;
    let f = form.fields;
    let changes = RuleChanges {
        rule_name: Some(f.rule_name.trim().to_owned()),
        description: None,
        instructions: Some(f.instructions),
        enabled: Some(true),
        file_type_patterns: Some(patterns(&f.file_type_patterns)),
        file_path_patterns: Some(patterns(&f.file_path_patterns)),
        priority: Some(priority(&f.priority)?),
        project_id: None,
    };
    render::after(
        state(&req)?.catalog.create_rule(changes).await,
        "/catalog",
        |_| "Rule created.".to_owned(),
    )
}

#[derive(Deserialize)]
struct RuleUpdateForm {
    enabled: Option<String>,
    #[serde(default)]
    priority: String,
}

async fn update_rule(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<Uuid>,
    form: PageForm<RuleUpdateForm>,
) -> Result<HttpResponse, PageError> {
    viewer.require_admin()?;
    let changes = RuleChanges {
        enabled: Some(form.fields.enabled.is_some()),
        priority: Some(priority(&form.fields.priority)?),
        ..RuleChanges::default()
    };
    render::after(
        state(&req)?.catalog.update_rule(*id, changes).await,
        "/catalog",
        |_| "Rule saved.".to_owned(),
    )
}
