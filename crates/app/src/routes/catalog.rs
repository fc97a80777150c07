//! Admin endpoints for review templates and rules (listed by `/api/reviews/templates/all`
//! and `/api/reviews/rules/all`).

use super::serde_helpers::double_option;
use crate::envelope;
use crate::error::ApiError;
use crate::extract::{RequireAdmin, ValidatedJson};
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use reviewd_domain::ports::{RuleChanges, TemplateChanges};
use serde::Deserialize;
use serde_json::json;
use utoipa_actix_web::service_config::ServiceConfig;
use uuid::Uuid;
use validator::Validate;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.route("/reviews/templates", web::post().to(create_template))
        .route("/reviews/templates/{id}", web::patch().to(update_template))
        .route("/reviews/rules", web::post().to(create_rule))
        .route("/reviews/rules/{id}", web::patch().to(update_rule));
}

#[derive(Deserialize, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TemplateBody {
    #[validate(length(max = 200))]
    name: Option<String>,
    #[serde(default, deserialize_with = "double_option")]
    description: Option<Option<String>>,
    #[validate(length(max = 20000, message = "at most 20000 characters"))]
    content: Option<String>,
    is_default: Option<bool>,
    #[serde(default, deserialize_with = "double_option")]
    project_id: Option<Option<Uuid>>,
}

impl From<TemplateBody> for TemplateChanges {
    fn from(b: TemplateBody) -> Self {
        TemplateChanges {
            name: b.name,
            description: b.description,
            content: b.content,
            is_default: b.is_default,
            project_id: b.project_id,
        }
    }
}

async fn create_template(
    state: web::Data<AppState>,
    _admin: RequireAdmin,
    body: ValidatedJson<TemplateBody>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(
        json!({ "template": state.catalog.create_template(body.0.into()).await? }),
    ))
}

async fn update_template(
    state: web::Data<AppState>,
    _admin: RequireAdmin,
    id: web::Path<Uuid>,
    body: ValidatedJson<TemplateBody>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(
        json!({ "template": state.catalog.update_template(*id, body.0.into()).await? }),
    ))
}

#[derive(Deserialize, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RuleBody {
    #[validate(length(max = 200))]
    rule_name: Option<String>,
    #[serde(default, deserialize_with = "double_option")]
    description: Option<Option<String>>,
    #[validate(length(max = 10000, message = "at most 10000 characters"))]
    instructions: Option<String>,
    enabled: Option<bool>,
    #[validate(length(max = 50))]
    file_type_patterns: Option<Vec<String>>,
    #[validate(length(max = 50))]
    file_path_patterns: Option<Vec<String>>,
    priority: Option<i32>,
    #[serde(default, deserialize_with = "double_option")]
    project_id: Option<Option<Uuid>>,
}

impl From<RuleBody> for RuleChanges {
    fn from(b: RuleBody) -> Self {
        RuleChanges {
            rule_name: b.rule_name,
            description: b.description,
            instructions: b.instructions,
            enabled: b.enabled,
            file_type_patterns: b.file_type_patterns,
            file_path_patterns: b.file_path_patterns,
            priority: b.priority,
            project_id: b.project_id,
        }
    }
}

async fn create_rule(
    state: web::Data<AppState>,
    _admin: RequireAdmin,
    body: ValidatedJson<RuleBody>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(
        json!({ "rule": state.catalog.create_rule(body.0.into()).await? }),
    ))
}

async fn update_rule(
    state: web::Data<AppState>,
    _admin: RequireAdmin,
    id: web::Path<Uuid>,
    body: ValidatedJson<RuleBody>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(
        json!({ "rule": state.catalog.update_rule(*id, body.0.into()).await? }),
    ))
}
