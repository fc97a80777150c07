//! Rows of review templates and review rules.

use crate::schema::{review_rules, review_templates};
use diesel::prelude::*;
use reviewd_domain::model::review_views::{RuleItem, TemplateItem};
use reviewd_domain::ports::ActiveRule;
use uuid::Uuid;

/// A template as lists show it (without its content).
#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = review_templates, check_for_backend(diesel::pg::Pg))]
pub(crate) struct TemplateRow {
    id: Uuid,
    name: String,
    description: Option<String>,
    is_default: bool,
    project_id: Option<Uuid>,
}

impl From<TemplateRow> for TemplateItem {
    fn from(r: TemplateRow) -> Self {
        TemplateItem {
            id: r.id,
            name: r.name,
            description: r.description,
            is_default: r.is_default,
            project_id: r.project_id.map(Into::into),
        }
    }
}

/// A rule as lists show it (without its instructions).
#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = review_rules, check_for_backend(diesel::pg::Pg))]
pub(crate) struct RuleRow {
    id: Uuid,
    rule_name: String,
    enabled: bool,
    file_type_patterns: Vec<String>,
    file_path_patterns: Vec<String>,
    priority: i32,
    project_id: Option<Uuid>,
}

impl From<RuleRow> for RuleItem {
    fn from(r: RuleRow) -> Self {
        RuleItem {
            id: r.id,
            rule_name: r.rule_name,
            enabled: r.enabled,
            file_type_patterns: r.file_type_patterns,
            file_path_patterns: r.file_path_patterns,
            priority: r.priority,
            project_id: r.project_id.map(Into::into),
        }
    }
}

/// A rule as a review applies it: its instructions and where they apply.
#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = review_rules, check_for_backend(diesel::pg::Pg))]
pub(crate) struct ActiveRuleRow {
    id: Uuid,
    rule_name: String,
    instructions: String,
    file_type_patterns: Vec<String>,
    file_path_patterns: Vec<String>,
    priority: i32,
}

impl From<ActiveRuleRow> for ActiveRule {
    fn from(r: ActiveRuleRow) -> Self {
        ActiveRule {
            id: r.id,
            rule_name: r.rule_name,
            instructions: r.instructions,
            file_type_patterns: r.file_type_patterns,
            file_path_patterns: r.file_path_patterns,
            priority: r.priority,
        }
    }
}
