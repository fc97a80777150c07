//! The lists of review templates and rules (mounted in the `/reviews` scope, as
//! `/api/reviews/templates/all` and `/api/reviews/rules/all`), and the bodies that show one.

use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::AuthUser;
use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use reviewd_domain::model::review_views::{RuleItem, TemplateItem};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// The review templates (without their text).
#[utoipa::path(responses((status = 200, body = Data<ReviewTemplates>)))]
#[get("/templates/all")]
pub(in crate::routes) async fn list_review_templates(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let templates = state.history.templates().await?;
    Ok(envelope::ok(ReviewTemplates {
        templates: templates.into_iter().map(ReviewTemplateDto::from).collect(),
    }))
}

/// The review rules, highest priority first.
#[utoipa::path(responses((status = 200, body = Data<ReviewRules>)))]
#[get("/rules/all")]
pub(in crate::routes) async fn list_review_rules(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let rules = state.history.rules().await?;
    Ok(envelope::ok(ReviewRules {
        rules: rules.into_iter().map(ReviewRuleDto::from).collect(),
    }))
}

// ---------------------------------------------------------------------------
// Templates and rules

/// A review template: the prompt that frames a review (its text is not listed).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReviewTemplateDto {
    id: Uuid,
    name: String,
    description: Option<String>,
    /// Whether it is the global default (never a project's).
    is_default: bool,
    /// The project it belongs to; `null` for a global template.
    project_id: Option<Uuid>,
}

impl From<TemplateItem> for ReviewTemplateDto {
    fn from(t: TemplateItem) -> Self {
        ReviewTemplateDto {
            id: t.id,
            name: t.name,
            description: t.description,
            is_default: t.is_default,
            project_id: t.project_id.map(Uuid::from),
        }
    }
}

/// `{"templates": [...]}`.
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewTemplates {
    pub templates: Vec<ReviewTemplateDto>,
}

/// `{"template": ...}`.
#[derive(Serialize, ToSchema)]
pub(crate) struct OneReviewTemplate {
    pub template: ReviewTemplateDto,
}

/// A review rule: instructions added to the prompt of the files it targets.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReviewRuleDto {
    id: Uuid,
    rule_name: String,
    enabled: bool,
    /// Globs of the file types it targets (`rs`, `*.ts`).
    file_type_patterns: Vec<String>,
    /// Globs of the paths it targets (`src/**`).
    file_path_patterns: Vec<String>,
    /// Higher first.
    priority: i32,
    /// The project it belongs to; `null` for a global rule.
    project_id: Option<Uuid>,
}

impl From<RuleItem> for ReviewRuleDto {
    fn from(r: RuleItem) -> Self {
        ReviewRuleDto {
            id: r.id,
            rule_name: r.rule_name,
            enabled: r.enabled,
            file_type_patterns: r.file_type_patterns,
            file_path_patterns: r.file_path_patterns,
            priority: r.priority,
            project_id: r.project_id.map(Uuid::from),
        }
    }
}

/// `{"rules": [...]}`.
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewRules {
    pub rules: Vec<ReviewRuleDto>,
}

/// `{"rule": ...}`.
#[derive(Serialize, ToSchema)]
pub(crate) struct OneReviewRule {
    pub rule: ReviewRuleDto,
}
