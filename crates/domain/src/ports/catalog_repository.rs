use super::RepoError;
use crate::model::ProjectId;
use crate::model::review_views::{RuleItem, TemplateItem};
use async_trait::async_trait;
use uuid::Uuid;

/// A template to create, or the fields to change (`None` keeps a value).
#[derive(Debug, Clone, Default)]
pub struct TemplateChanges {
    pub name: Option<String>,
    pub description: Option<Option<String>>,
    pub content: Option<String>,
    pub is_default: Option<bool>,
    pub project_id: Option<Option<ProjectId>>,
}

/// A rule to create, or the fields to change (`None` keeps a value).
#[derive(Debug, Clone, Default)]
pub struct RuleChanges {
    pub rule_name: Option<String>,
    pub description: Option<Option<String>>,
    pub instructions: Option<String>,
    pub enabled: Option<bool>,
    pub file_type_patterns: Option<Vec<String>>,
    pub file_path_patterns: Option<Vec<String>>,
    pub priority: Option<i32>,
    pub project_id: Option<Option<ProjectId>>,
}

pub use crate::model::rule::ActiveRule;

/// Review templates and rules.
#[async_trait]
pub trait CatalogRepository: Send + Sync {
    /// Creates a template (`name` and `content` set); a new default replaces the old.
    ///
    /// # Errors
    /// `NotFound` for an unknown project.
    async fn create_template(&self, template: TemplateChanges) -> Result<TemplateItem, RepoError>;

    /// # Errors
    /// `NotFound` for an unknown template.
    async fn update_template(
        &self,
        id: Uuid,
        changes: TemplateChanges,
    ) -> Result<TemplateItem, RepoError>;

    /// The content of a template, or of the global default when `id` is `None`.
    ///
    /// # Errors
    /// Store failures; an unknown id is `Ok(None)`.
    async fn template_content(&self, id: Option<Uuid>)
    -> Result<Option<(Uuid, String)>, RepoError>;

    /// The content of the template named `name` (exactly) that `project_id` may use:
    /// the project's own before a global one, then the oldest (names are not unique).
    ///
    /// # Errors
    /// Store failures; no such template is `Ok(None)`.
    async fn template_named(
        &self,
        name: &str,
        project_id: ProjectId,
    ) -> Result<Option<(Uuid, String)>, RepoError>;

    /// # Errors
    /// `NotFound` for an unknown project.
    async fn create_rule(&self, rule: RuleChanges) -> Result<RuleItem, RepoError>;

    /// # Errors
    /// `NotFound` for an unknown rule.
    async fn update_rule(&self, id: Uuid, changes: RuleChanges) -> Result<RuleItem, RepoError>;

    /// Enabled rules that apply to the project (global ones and its own), highest
    /// priority first.
    ///
    /// # Errors
    /// Store failures.
    async fn active_rules(&self, project_id: ProjectId) -> Result<Vec<ActiveRule>, RepoError>;
}
