//! What a claim gives a runner for each task it took: a round prepared ahead,
//! completed with what is never stored (clone credentials, the AI configuration's
//! key); or, for a task nothing prepared, its round begun here.

use super::RunnerService;
use crate::model::ReviewTask;
use crate::model::runner::{ClaimedTask, RunnerOutcome};
use crate::ports::PreparedRound;
use crate::services::ServiceError;
use crate::services::review_engine::{Assigned, RunnerRound};

impl RunnerService {
    fn timeout_ms(&self) -> u64 {
        u64::try_from(self.settings.task_lease.as_millis()).unwrap_or(u64::MAX)
    }

    /// A prepared round as the runner receives it. No platform call: the project and
    /// its credentials come from the store (an App's token from its cache), the AI
    /// configuration is resolved again. Should that fail, the task goes back to the
    /// queue (its attempt given back), to be prepared again.
    pub(super) async fn hand_out(
        &self,
        task: &ReviewTask,
        prepared: PreparedRound,
        runner_id: &str,
    ) -> Result<Option<ClaimedTask>, ServiceError> {
        let resolved = async {
            let project = self.projects.get(task.project_id).await?;
            let credentials = self.projects.clone_credentials(&project).await?;
            let ai = self
                .engine
                .runner_ai_for(prepared.payload.ai_config_id)
                .await
                .map_err(|f| ServiceError::Unavailable(f.message))?;
            Ok::<_, ServiceError>((project, credentials, ai))
        }
        .await;
        let (project, credentials, ai) = match resolved {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(task.id = %task.id, error = %e, "runner.prepared_handout_failed");
                self.runners
                    .release(task.id, runner_id, &e.to_string())
                    .await?;
                return Ok(None);
            }
        };
        let (assignment, payload) = (prepared.assignment, prepared.payload);
        tracing::info!(task.id = %task.id, runner.id = %runner_id, files = assignment.files.len(), prepared = true, "runner.task_claimed");
        Ok(Some(ClaimedTask {
            id: task.id,
            review_id: assignment.review_id,
            project_id: project.id,
            project_path: project.full_path.clone(),
            mr_iid: task.mr_iid,
            mr_title: payload.mr_title,
            mr_description: payload.mr_description,
            repository_url: super::repository_url(&project.web_url),
            clone_credentials: credentials,
            source_branch: payload.source_branch,
            target_branch: payload.target_branch,
            base_sha: assignment.base_sha,
            commit_sha: assignment.head_sha,
            files: assignment.files,
            system_prompt: payload.system_prompt,
            rules: payload.rules,
            ai,
            attempt: task.attempts,
            timeout_ms: self.timeout_ms(),
            context: assignment.context.unwrap_or_default(),
            tools: assignment.tools.unwrap_or_default(),
        }))
    }

    /// Begins the claimed task's round now (nothing was prepared for it), and
    /// settles a task that needs no runner.
    pub(super) async fn prepare_inline(
        &self,
        task: &ReviewTask,
        runner_id: &str,
    ) -> Result<Option<ClaimedTask>, ServiceError> {
        match self.engine.assign(task).await {
            Ok(Assigned::Round(round)) => {
                self.runners
                    .save_assignment(task.id, &round.assignment)
                    .await?;
                let credentials = self.projects.clone_credentials(&round.project).await?;
                tracing::info!(task.id = %task.id, runner.id = %runner_id, files = round.assignment.files.len(), prepared = false, "runner.task_claimed");
                Ok(Some(self.claimed_task(task, *round, credentials)))
            }
            Ok(Assigned::AlreadyReviewed(review_id)) => {
                self.tasks.complete(task.id, Some(review_id)).await?;
                self.runners
                    .count_finished(runner_id, RunnerOutcome::Success)
                    .await?;
                Ok(None)
            }
            Ok(Assigned::NotReviewed) => {
                self.tasks.complete(task.id, None).await?;
                self.runners
                    .count_finished(runner_id, RunnerOutcome::Success)
                    .await?;
                Ok(None)
            }
            Err(f) if f.transient => {
                tracing::warn!(task.id = %task.id, error = %f.message, "runner.prepare_failed");
                self.runners.release(task.id, runner_id, &f.message).await?;
                Ok(None)
            }
            Err(f) => {
                self.tasks.fail(task.id, &f.message).await?;
                self.runners
                    .count_finished(runner_id, RunnerOutcome::Failed)
                    .await?;
                self.engine.task_failed(task, &f.message).await;
                Ok(None)
            }
        }
    }

    fn claimed_task(
        &self,
        task: &ReviewTask,
        round: RunnerRound,
        clone_credentials: Option<crate::model::runner::CloneCredentials>,
    ) -> ClaimedTask {
        let RunnerRound {
            assignment,
            project,
            mr,
            system_prompt,
            rules,
            ai,
            ai_config_id: _,
        } = round;
        ClaimedTask {
            id: task.id,
            review_id: assignment.review_id,
            project_id: project.id,
            project_path: project.full_path.clone(),
            mr_iid: task.mr_iid,
            mr_title: mr.title,
            mr_description: mr.description,
            repository_url: super::repository_url(&project.web_url),
            clone_credentials,
            source_branch: mr.source_branch,
            target_branch: mr.target_branch,
            base_sha: assignment.base_sha,
            commit_sha: assignment.head_sha,
            files: assignment.files,
            system_prompt,
            rules,
            ai,
            attempt: task.attempts,
            timeout_ms: self.timeout_ms(),
            context: assignment.context.unwrap_or_default(),
            tools: assignment.tools.unwrap_or_default(),
        }
    }
}
