//! The merge gate on hostA: a commit status named `reviewd`
//! (`POST /projects/:id/statuses/:sha`).

use crate::client::GitlabPlatform;
use crate::rest::{built, gl_error};
use gitlab::api::projects::repository::commits::{CommitStatusState, CreateCommitStatus};
use gitlab::api::{AsyncQuery, ignore};
use reviewd_domain::model::gate::{CommitGate, GATE_NAME, GateState};
use reviewd_domain::ports::{PlatformError, ProjectRef};

/// GitLab's states: a failed or cancelled review is `canceled`, which a
/// "pipelines must succeed" project does not take for green.
fn state(gate: GateState) -> CommitStatusState {
    match gate {
        GateState::Pending => CommitStatusState::Pending,
        GateState::Running => CommitStatusState::Running,
        GateState::Passed => CommitStatusState::Success,
        GateState::Failed => CommitStatusState::Failed,
        GateState::Errored => CommitStatusState::Canceled,
    }
}

impl GitlabPlatform {
    pub(crate) async fn commit_status(
        &self,
        project: &ProjectRef,
        sha: &str,
        gate: &CommitGate,
    ) -> Result<(), PlatformError> {
        let mut status = CreateCommitStatus::builder();
        status
            .project(project.id.as_str())
            .commit(sha)
            .state(state(gate.state))
            .name(GATE_NAME)
            .description(gate.description.as_str());
        if let Some(url) = &gate.target_url {
            status.target_url(url.as_str());
        }
        let status = status.build().map_err(built)?;
        match ignore(status)
            .query_async(&self.rest)
            .await
            .map_err(gl_error)
        {
            // GitLab refuses a transition to the state the status is already in
            // ("Cannot transition status via :run from :running"): a repeated post
            // (a retried attempt) has nothing to change.
            Err(PlatformError::Rejected(message))
                if message.contains("Cannot transition status") =>
            {
                Ok(())
            }
            other => other,
        }
    }
}
