//! The guidance a round runs with: the review template (the task's, else the project's, else
//! the global default) and the project's rules.

use super::ReviewEngine;
use crate::model::ProjectId;
use crate::model::conversation::Learning;
use crate::ports::ActiveRule;
use crate::review::prompt;
use uuid::Uuid;

/// The template and rules a review runs with.
pub(super) struct Guidance {
    pub(super) system: String,
    pub(super) rules: Vec<ActiveRule>,
}

impl ReviewEngine {
    /// The task's template (else the project's, else the global default), the
    /// project's rules and, after them, its learnings.
    pub(super) async fn guidance(
        &self,
        template_id: Option<Uuid>,
        project_id: ProjectId,
    ) -> Result<Guidance, crate::ports::RepoError> {
        let template = match self.catalog.template_content(template_id).await? {
            Some(t) => Some(t),
            None if template_id.is_some() => self.catalog.template_content(None).await?,
            None => None,
        };
        let mut rules = self.catalog.active_rules(project_id).await?;
        if let Some(learnings) = &self.learnings {
            rules.extend(learnings.learnings(project_id).await?.iter().map(as_rule));
        }
        Ok(Guidance {
            system: prompt::system_prompt(template.as_ref().map(|(_, content)| content.as_str())),
            rules,
        })
    }
}

/// A learning as the last of the project's rules, for every file: the team told
/// reviewd, so each review's prompt carries it.
fn as_rule(learning: &Learning) -> ActiveRule {
    ActiveRule {
        id: learning.id,
        rule_name: "Team learning".into(),
        instructions: learning
            .text
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        file_type_patterns: Vec::new(),
        file_path_patterns: Vec::new(),
        priority: i32::MIN,
    }
}
