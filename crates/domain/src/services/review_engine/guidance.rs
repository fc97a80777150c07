//! The guidance a round runs with: the review template (the task's, else the project's, else
//! the global default) and the project's rules.

use super::ReviewEngine;
use crate::model::ProjectId;
use crate::ports::ActiveRule;
use crate::review::prompt;
use uuid::Uuid;

/// The template and rules a review runs with.
pub(super) struct Guidance {
    pub(super) system: String,
    pub(super) rules: Vec<ActiveRule>,
}

impl ReviewEngine {
    /// The task's template (else the project's, else the global default) and the
    /// project's rules.
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
        Ok(Guidance {
            system: prompt::system_prompt(template.as_ref().map(|(_, content)| content.as_str())),
            rules: self.catalog.active_rules(project_id).await?,
        })
    }
}
