//! Review templates and rules (admin-managed; the engine reads them).

use super::{FieldError, ServiceError};
use crate::model::review_views::{RuleItem, TemplateItem};
use crate::ports::{CatalogRepository, RepoError, RuleChanges, TemplateChanges};
use crate::review::globs::Patterns;
use std::sync::Arc;
use uuid::Uuid;

pub struct CatalogService {
    catalog: Arc<dyn CatalogRepository>,
}

/// A missing row behind a foreign key is the project; behind an update, the item.
fn not_found(e: RepoError, what: &'static str) -> ServiceError {
    ServiceError::from_repo(e, what)
}

fn check_template(t: &TemplateChanges, creating: bool) -> Result<(), ServiceError> {
    let mut errors = Vec::new();
    if t.name.as_deref().is_some_and(|n| n.trim().is_empty()) || (creating && t.name.is_none()) {
        errors.push(FieldError::new("name", "must not be empty"));
    }
    if t.content.as_deref().is_some_and(|c| c.trim().is_empty())
        || (creating && t.content.is_none())
    {
        errors.push(FieldError::new("content", "must not be empty"));
    }
    if t.is_default == Some(true) && matches!(t.project_id, Some(Some(_))) {
        errors.push(FieldError::new(
            "isDefault",
            "the global default cannot belong to a project",
        ));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ServiceError::Invalid(errors))
    }
}

fn check_rule(r: &RuleChanges, creating: bool) -> Result<(), ServiceError> {
    let mut errors = Vec::new();
    if r.rule_name.as_deref().is_some_and(|n| n.trim().is_empty())
        || (creating && r.rule_name.is_none())
    {
        errors.push(FieldError::new("ruleName", "must not be empty"));
    }
    if r.instructions
        .as_deref()
        .is_some_and(|c| c.trim().is_empty())
        || (creating && r.instructions.is_none())
    {
        errors.push(FieldError::new("instructions", "must not be empty"));
    }
    for (field, patterns) in [
        ("fileTypePatterns", &r.file_type_patterns),
        ("filePathPatterns", &r.file_path_patterns),
    ] {
        if let Some(Err(e)) = patterns.as_ref().map(|p| Patterns::new(p)) {
            errors.push(FieldError::new(field, e.to_string()));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ServiceError::Invalid(errors))
    }
}

impl CatalogService {
    pub fn new(catalog: Arc<dyn CatalogRepository>) -> Self {
        Self { catalog }
    }

    /// # Errors
    /// `Invalid` for empty fields or a project default; `NotFound` for an unknown project.
    pub async fn create_template(&self, t: TemplateChanges) -> Result<TemplateItem, ServiceError> {
        check_template(&t, true)?;
        self.catalog
            .create_template(t)
            .await
            .map_err(|e| not_found(e, "project"))
    }

    /// # Errors
    /// As `create_template`; `NotFound` for an unknown template.
    pub async fn update_template(
        &self,
        id: Uuid,
        t: TemplateChanges,
    ) -> Result<TemplateItem, ServiceError> {
        check_template(&t, false)?;
        self.catalog
            .update_template(id, t)
            .await
            .map_err(|e| not_found(e, "template"))
    }

    /// The prompt text of a template, for editing it.
    ///
    /// # Errors
    /// `NotFound` for an unknown template.
    pub async fn template_content(&self, id: Uuid) -> Result<String, ServiceError> {
        self.catalog
            .template_content(Some(id))
            .await?
            .map(|(_, content)| content)
            .ok_or(ServiceError::NotFound("template"))
    }

    /// # Errors
    /// `Invalid` for empty fields or bad glob patterns; `NotFound` for an unknown project.
    pub async fn create_rule(&self, r: RuleChanges) -> Result<RuleItem, ServiceError> {
        check_rule(&r, true)?;
        self.catalog
            .create_rule(r)
            .await
            .map_err(|e| not_found(e, "project"))
    }

    /// # Errors
    /// As `create_rule`; `NotFound` for an unknown rule.
    pub async fn update_rule(&self, id: Uuid, r: RuleChanges) -> Result<RuleItem, ServiceError> {
        check_rule(&r, false)?;
        self.catalog
            .update_rule(id, r)
            .await
            .map_err(|e| not_found(e, "rule"))
    }
}
