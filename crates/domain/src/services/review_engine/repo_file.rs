//! `.reviewd.yml` at the round's head: read through the platform, reported once per
//! head when it cannot be used, and laid over the project's settings. The server
//! reads it for runner tasks too: a runner gets the resulting prompt, rules and
//! files, so its clone never needs to read the file.

use super::guidance::Guidance;
use super::{Failure, ReviewEngine};
use crate::model::{Project, ReviewTask};
use crate::ports::{HostingPlatform, PlatformError};
use crate::review::prompt;
use crate::review::repo_config::{
    self, CONFIG_PATH, RepoConfig, Unapplied, language_instruction, problem_marker, problem_note,
};

impl ReviewEngine {
    /// The file at `head`: `None` when there is none, or when it cannot be used (then
    /// the MR gets a note saying why, once per head, and the round runs on the
    /// project's settings).
    pub(super) async fn repo_config(
        &self,
        platform: &dyn HostingPlatform,
        project: &Project,
        task: &ReviewTask,
        head: &str,
    ) -> Result<Option<RepoConfig>, Failure> {
        let Some(parser) = &self.repo_config else {
            return Ok(None);
        };
        let target = project.platform_ref();
        let bytes = match platform.read_file(&target, CONFIG_PATH, head).await {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Ok(None),
            // Reviewing with the wrong settings is worse than reviewing later.
            Err(e @ (PlatformError::Unavailable(_) | PlatformError::RateLimited { .. })) => {
                return Err(e.into());
            }
            Err(e) => {
                tracing::warn!(task.id = %task.id, error = %e, "review.repo_config_unreadable");
                return Ok(None);
            }
        };
        match repo_config::read(&bytes, parser.as_ref()) {
            Ok(config) => {
                tracing::info!(task.id = %task.id, head, "review.repo_config_applied");
                Ok(Some(config))
            }
            Err(problem) => {
                tracing::info!(task.id = %task.id, head, problem = %problem, "review.repo_config_invalid");
                if task.send_to_platform {
                    let note = problem_note(head, &problem, Unapplied::File);
                    self.note_problem(platform, project, task.mr_iid, head, &note)
                        .await;
                }
                Ok(None)
            }
        }
    }

    /// The system prompt of the template the file names, when it names one that
    /// exists; an unknown name is reported on the MR like a broken file (the rest
    /// of the file still applies).
    pub(super) async fn file_template(
        &self,
        platform: &dyn HostingPlatform,
        project: &Project,
        task: &ReviewTask,
        head: &str,
        file: Option<&RepoConfig>,
    ) -> Result<Option<String>, Failure> {
        let Some(name) = file.and_then(|f| f.template.as_deref()).map(str::trim) else {
            return Ok(None);
        };
        if let Some((_, content)) = self.catalog.template_named(name, project.id).await? {
            return Ok(Some(prompt::system_prompt(Some(&content))));
        }
        tracing::info!(task.id = %task.id, template = name, "review.repo_config_unknown_template");
        if task.send_to_platform {
            let problem = format!("template: there is no template named `{name}`");
            let note = problem_note(head, &problem, Unapplied::Template);
            self.note_problem(platform, project, task.mr_iid, head, &note)
                .await;
        }
        Ok(None)
    }

    /// Posts `note` about the file unless one for this head is on the MR already (a
    /// second webhook, a retry). A failure costs only the note.
    async fn note_problem(
        &self,
        platform: &dyn HostingPlatform,
        project: &Project,
        iid: i64,
        head: &str,
        note: &str,
    ) {
        let target = project.platform_ref();
        let marker = problem_marker(head);
        match platform.list_comments(&target, iid).await {
            Ok(existing) if existing.iter().any(|c| c.body.contains(&marker)) => return,
            Ok(_) => {}
            // Unsure whether it is there: better no note than two.
            Err(e) => {
                tracing::warn!(mr.iid = iid, error = %e, "review.repo_config_note_skipped");
                return;
            }
        }
        if let Err(e) = platform.post_comment(&target, iid, note).await {
            tracing::warn!(mr.iid = iid, error = %e, "review.repo_config_note_failed");
        }
    }
}

/// The file's template (`system`, when it named one that exists), its rules after
/// the project's, and its language in the system prompt.
pub(super) fn apply_to_guidance(
    guidance: &mut Guidance,
    file: Option<&RepoConfig>,
    system: Option<String>,
) {
    if let Some(system) = system {
        guidance.system = system;
    }
    let Some(file) = file else { return };
    guidance.rules.extend(file.active_rules());
    if let Some(language) = &file.language {
        guidance.system.push_str("\n\n");
        guidance.system.push_str(&language_instruction(language));
    }
}

/// The ignore globs of a round: the file's replace the project's when it has them.
pub(super) fn ignore_patterns<'a>(
    file: Option<&'a RepoConfig>,
    project: &'a [String],
) -> (&'a [String], &'static str) {
    match file.and_then(|f| f.ignore.as_deref()) {
        Some(globs) => (globs, "ignored by .reviewd.yml"),
        None => (project, "ignored by fileIgnorePatterns"),
    }
}
