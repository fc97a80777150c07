//! `/catalog`: review templates (the prompt's frame) and review rules (instructions
//! added for matching files, in priority order).

use crate::form::PageForm;
use crate::render::{self, Chrome, PageError, describe};
use crate::session::{Viewer, state};
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use reviewd_domain::model::Permission;
use reviewd_domain::model::review_views::{RuleItem, TemplateItem};
use reviewd_domain::ports::{RuleChanges, TemplateChanges};
use reviewd_domain::services::ServiceError;
use serde::Deserialize;
use uuid::Uuid;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/catalog", web::get().to(show))
        .route("/catalog/templates", web::post().to(create_template))
        .route("/catalog/templates/{id}/default", web::post().to(make_default))
        .route("/catalog/rules", web::post().to(create_rule))
        .route("/catalog/rules/{id}", web::post().to(update_rule));
}

#[derive(Template)]
#[template(path = "catalog.html")]
struct CatalogPage {
    chrome: Chrome,
    templates: Vec<TemplateItem>,
    rules: Vec<RuleItem>,
}

async fn show(req: HttpRequest, viewer: Viewer) -> Result<HttpResponse, PageError> {
    let state = state(&req)?;
    let mut rules = state.history.rules().await?;
    rules.sort_by_key(|r| std::cmp::Reverse(r.priority));
    render::page(&CatalogPage {
        chrome: Chrome::new(&viewer, "catalog", "Templates and rules"),
        templates: state.history.templates().await?,
        rules,
    })
}

fn saved_or_shown<T>(result: Result<T, ServiceError>, done: &str) -> Result<HttpResponse, PageError> {
    match result {
        Ok(_) => Ok(render::redirect_with("/catalog", done)),
        Err(err @ (ServiceError::Invalid(_) | ServiceError::Conflict(_) | ServiceError::BadRequest { .. })) => {
            Ok(render::redirect_error("/catalog", &describe(&err)))
        }
        Err(err) => Err(err.into()),
    }
}

#[derive(Deserialize)]
struct TemplateForm {
    name: String,
    #[serde(default)]
    description: String,
    content: String,
    is_default: Option<String>,
}

async fn create_template(
    req: HttpRequest,
    viewer: Viewer,
    form: PageForm<TemplateForm>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ConfigCreate)?;
    let f = form.fields;
    let changes = TemplateChanges {
        name: Some(f.name.trim().to_owned()),
        description: Some(Some(f.description.trim().to_owned()).filter(|d| !d.is_empty())),
        content: Some(f.content),
        is_default: Some(f.is_default.is_some()),
        project_id: None,
    };
    saved_or_shown(
        state(&req)?.catalog.create_template(changes).await,
        "Template created.",
    )
}

#[derive(Deserialize)]
struct Nothing {}

async fn make_default(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<Uuid>,
    _form: PageForm<Nothing>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ConfigUpdate)?;
    let changes = TemplateChanges {
        is_default: Some(true),
        ..TemplateChanges::default()
    };
    saved_or_shown(
        state(&req)?.catalog.update_template(*id, changes).await,
        "Default template changed.",
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
    viewer.require(Permission::ConfigCreate)?;
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
    saved_or_shown(state(&req)?.catalog.create_rule(changes).await, "Rule created.")
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
    viewer.require(Permission::ConfigUpdate)?;
    let changes = RuleChanges {
        enabled: Some(form.fields.enabled.is_some()),
        priority: Some(priority(&form.fields.priority)?),
        ..RuleChanges::default()
    };
    saved_or_shown(state(&req)?.catalog.update_rule(*id, changes).await, "Rule saved.")
}
