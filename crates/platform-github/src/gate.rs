//! The merge gate on hostB: a check run named `reviewd` for a GitHub App
//! (`POST /repos/{owner}/{repo}/check-runs`; GitHub shows the newest run of a name
//! on a commit, so each state is a new run and nothing is kept between calls), a
//! commit status for a token or OAuth config (`POST .../statuses/{sha}`, which
//! only Apps' check runs would need the `checks` permission for).

use crate::client::GithubPlatform;
use reviewd_domain::model::gate::{CommitGate, GATE_NAME, GateState};
use reviewd_domain::ports::PlatformError;
use serde_json::{Value, json};

/// A commit status: a failed or cancelled review is `error`.
fn status(gate: &CommitGate) -> Value {
    let state = match gate.state {
        GateState::Pending | GateState::Running => "pending",
        GateState::Passed => "success",
        GateState::Failed => "failure",
        GateState::Errored => "error",
    };
    let mut body = json!({ "state": state, "context": GATE_NAME, "description": gate.description });
    if let Some(url) = &gate.target_url {
        body["target_url"] = json!(url);
    }
    body
}

/// A check run: a failed or cancelled review concludes `cancelled`, which a
/// required check does not take for green (`neutral` it would).
fn check_run(sha: &str, gate: &CommitGate) -> Value {
    let (status, conclusion, title) = match gate.state {
        GateState::Pending => ("queued", None, "Review queued"),
        GateState::Running => ("in_progress", None, "Review under way"),
        GateState::Passed => ("completed", Some("success"), "Nothing holds the merge"),
        GateState::Failed => ("completed", Some("failure"), "Findings hold the merge"),
        GateState::Errored => ("completed", Some("cancelled"), "The review did not finish"),
    };
    let mut body = json!({
        "name": GATE_NAME,
        "head_sha": sha,
        "status": status,
        "output": { "title": title, "summary": gate.description },
    });
    if let Some(conclusion) = conclusion {
        body["conclusion"] = json!(conclusion);
    }
    if let Some(url) = &gate.target_url {
        body["details_url"] = json!(url);
    }
    body
}

impl GithubPlatform {
    pub(crate) async fn commit_gate(
        &self,
        repo: &str,
        sha: &str,
        gate: &CommitGate,
    ) -> Result<(), PlatformError> {
        if self.is_app() {
            self.post_unread(&format!("{repo}/check-runs"), &check_run(sha, gate))
                .await
        } else {
            self.post_unread(&format!("{repo}/statuses/{sha}"), &status(gate))
                .await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_review_is_never_green_on_either_kind() {
        let gate = CommitGate::new(GateState::Errored, "the review failed", None);
        assert_eq!(status(&gate)["state"], "error");
        assert_eq!(check_run("abc", &gate)["conclusion"], "cancelled");
        let running = CommitGate::new(GateState::Running, "reviewing", Some("https://r/x".into()));
        let run = check_run("abc", &running);
        assert_eq!(
            (run["status"].as_str(), run.get("conclusion")),
            (Some("in_progress"), None)
        );
        assert_eq!(run["details_url"], "https://r/x");
        assert_eq!(status(&running)["target_url"], "https://r/x");
    }
}
