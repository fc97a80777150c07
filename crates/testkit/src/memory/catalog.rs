//! `CatalogRepository` in memory: review templates and rules.

use super::MemoryStore;
use super::Tables;
use async_trait::async_trait;
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::review_views::{RuleItem, TemplateItem};
use reviewd_domain::ports::{
    ActiveRule, CatalogRepository, RepoError, RuleChanges, TemplateChanges,
};
use uuid::Uuid;

#[derive(Debug, Clone)]
pub(crate) struct TemplateRow {
    pub item: TemplateItem,
    pub content: String,
}

#[derive(Debug, Clone)]
pub(crate) struct RuleRow {
    pub item: RuleItem,
    pub description: Option<String>,
    pub instructions: String,
}

/// The migrations seed no template or rule, so a fresh store starts empty too.
#[derive(Debug, Default)]
pub(crate) struct CatalogTables {
    pub templates: Vec<TemplateRow>,
    pub rules: Vec<RuleRow>,
}

impl Tables {
    fn known_project(&self, id: Option<ProjectId>) -> Result<(), RepoError> {
        match id {
            Some(id) if !self.projects.iter().any(|p| p.id == id) => Err(RepoError::NotFound),
            _ => Ok(()),
        }
    }

    /// Writes a template as its row will be, after the checks the schema makes; a
    /// new default replaces the old one.
    fn save_template(&mut self, row: TemplateRow) -> Result<TemplateItem, RepoError> {
        self.known_project(row.item.project_id)?;
        if row.item.is_default && row.item.project_id.is_some() {
            return Err(RepoError::Conflict(
                "review_templates_default_is_global".into(),
            ));
        }
        let templates = &mut self.catalog.templates;
        if row.item.is_default {
            for t in templates.iter_mut() {
                t.item.is_default = false;
            }
        }
        let item = row.item.clone();
        match templates.iter_mut().find(|t| t.item.id == item.id) {
            Some(t) => *t = row,
            None => templates.push(row),
        }
        Ok(item)
    }

    fn save_rule(&mut self, row: RuleRow) -> Result<RuleItem, RepoError> {
        self.known_project(row.item.project_id)?;
        let rules = &mut self.catalog.rules;
        let item = row.item.clone();
        match rules.iter_mut().find(|r| r.item.id == item.id) {
            Some(r) => *r = row,
            None => rules.push(row),
        }
        Ok(item)
    }
}

/// `None` keeps the stored value.
fn set<T>(slot: &mut T, change: Option<T>) {
    if let Some(v) = change {
        *slot = v;
    }
}

fn apply_template(row: &mut TemplateRow, c: TemplateChanges) {
    let item = &mut row.item;
    set(&mut item.name, c.name);
    set(&mut item.description, c.description);
    set(&mut item.is_default, c.is_default);
    set(&mut item.project_id, c.project_id);
    set(&mut row.content, c.content);
}

fn apply_rule(row: &mut RuleRow, c: RuleChanges) {
    let item = &mut row.item;
    set(&mut item.rule_name, c.rule_name);
    set(&mut item.enabled, c.enabled);
    set(&mut item.file_type_patterns, c.file_type_patterns);
    set(&mut item.file_path_patterns, c.file_path_patterns);
    set(&mut item.priority, c.priority);
    set(&mut item.project_id, c.project_id);
    set(&mut row.description, c.description);
    set(&mut row.instructions, c.instructions);
}

/// A new template: what the changes leave unset is empty, not default, global.
fn blank_template() -> TemplateRow {
    TemplateRow {
        item: TemplateItem {
            id: Uuid::new_v4(),
            name: String::new(),
            description: None,
            is_default: false,
            project_id: None,
        },
        content: String::new(),
    }
}

/// A new rule: enabled, priority 0, global, matching every file.
fn blank_rule() -> RuleRow {
    RuleRow {
        item: RuleItem {
            id: Uuid::new_v4(),
            rule_name: String::new(),
            enabled: true,
            file_type_patterns: Vec::new(),
            file_path_patterns: Vec::new(),
            priority: 0,
            project_id: None,
        },
        description: None,
        instructions: String::new(),
    }
}

/// Highest priority first, then by name, as the rules list and the engine read them.
pub(super) fn by_priority(a: &RuleItem, b: &RuleItem) -> std::cmp::Ordering {
    b.priority
        .cmp(&a.priority)
        .then_with(|| a.rule_name.cmp(&b.rule_name))
}

#[async_trait]
impl CatalogRepository for MemoryStore {
    async fn create_template(&self, template: TemplateChanges) -> Result<TemplateItem, RepoError> {
        let mut row = blank_template();
        apply_template(&mut row, template);
        self.tables().save_template(row)
    }

    async fn update_template(
        &self,
        id: Uuid,
        changes: TemplateChanges,
    ) -> Result<TemplateItem, RepoError> {
        let mut t = self.tables();
        let mut row = t
            .catalog
            .templates
            .iter()
            .find(|r| r.item.id == id)
            .cloned()
            .ok_or(RepoError::NotFound)?;
        apply_template(&mut row, changes);
        t.save_template(row)
    }

    async fn template_content(
        &self,
        id: Option<Uuid>,
    ) -> Result<Option<(Uuid, String)>, RepoError> {
        Ok(self
            .tables()
            .catalog
            .templates
            .iter()
            .find(|r| id.map_or(r.item.is_default, |id| r.item.id == id))
            .map(|r| (r.item.id, r.content.clone())))
    }

    async fn template_named(
        &self,
        name: &str,
        project_id: ProjectId,
    ) -> Result<Option<(Uuid, String)>, RepoError> {
        let t = self.tables();
        let named = |own: bool| {
            t.catalog.templates.iter().find(|r| {
                r.item.name == name
                    && if own {
                        r.item.project_id == Some(project_id)
                    } else {
                        r.item.project_id.is_none()
                    }
            })
        };
        Ok(named(true)
            .or_else(|| named(false))
            .map(|r| (r.item.id, r.content.clone())))
    }

    async fn create_rule(&self, rule: RuleChanges) -> Result<RuleItem, RepoError> {
        let mut row = blank_rule();
        apply_rule(&mut row, rule);
        self.tables().save_rule(row)
    }

    async fn update_rule(&self, id: Uuid, changes: RuleChanges) -> Result<RuleItem, RepoError> {
        let mut t = self.tables();
        let mut row = t
            .catalog
            .rules
            .iter()
            .find(|r| r.item.id == id)
            .cloned()
            .ok_or(RepoError::NotFound)?;
        apply_rule(&mut row, changes);
        t.save_rule(row)
    }

    async fn active_rules(&self, project_id: ProjectId) -> Result<Vec<ActiveRule>, RepoError> {
        let t = self.tables();
        let mut rules: Vec<&RuleRow> = t
            .catalog
            .rules
            .iter()
            .filter(|r| r.item.enabled && r.item.project_id.is_none_or(|p| p == project_id))
            .collect();
        rules.sort_by(|a, b| by_priority(&a.item, &b.item));
        Ok(rules
            .into_iter()
            .map(|r| ActiveRule {
                id: r.item.id,
                rule_name: r.item.rule_name.clone(),
                instructions: r.instructions.clone(),
                file_type_patterns: r.item.file_type_patterns.clone(),
                file_path_patterns: r.item.file_path_patterns.clone(),
                priority: r.item.priority,
            })
            .collect())
    }
}
