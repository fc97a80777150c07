//! The merge gate: reviewd's verdict on a commit, posted as a commit status named
//! `reviewd` (hostA; hostB with a token or OAuth) or a check run (hostB Apps), that
//! a protected branch can require.

/// The name the status or check run carries on every platform.
pub const GATE_NAME: &str = "reviewd";

/// Where the gate of one commit stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GateState {
    /// The review is queued.
    Pending,
    /// A round is under way.
    Running,
    /// The round finished and the policy passes.
    Passed,
    /// The round finished and the policy fails (a finding stands, or the grade is
    /// below the bar).
    Failed,
    /// The review failed or was cancelled: never green, never "findings".
    Errored,
}

impl GateState {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            GateState::Pending => "pending",
            GateState::Running => "running",
            GateState::Passed => "passed",
            GateState::Failed => "failed",
            GateState::Errored => "errored",
        }
    }

    /// Whether the review has come to a verdict (a later state of the same
    /// commit replaces it only through a new round).
    #[must_use]
    pub fn is_final(self) -> bool {
        matches!(
            self,
            GateState::Passed | GateState::Failed | GateState::Errored
        )
    }
}

/// What is posted for one commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitGate {
    pub state: GateState,
    /// One line for the platform's list of checks (cut to 140 characters, GitHub's
    /// limit for a status).
    pub description: String,
    /// The review's page on the dashboard, when the server's URL is known.
    pub target_url: Option<String>,
}

/// GitHub's limit for a status description; GitLab's is 255.
pub const MAX_DESCRIPTION: usize = 140;

impl CommitGate {
    #[must_use]
    pub fn new(state: GateState, description: &str, target_url: Option<String>) -> Self {
        let description = if description.chars().count() > MAX_DESCRIPTION {
            let cut: String = description.chars().take(MAX_DESCRIPTION - 1).collect();
            format!("{cut}…")
        } else {
            description.to_owned()
        };
        Self {
            state,
            description,
            target_url,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_description_is_cut_to_the_platforms_limit() {
        let long = "x".repeat(300);
        let gate = CommitGate::new(GateState::Failed, &long, None);
        assert_eq!(gate.description.chars().count(), MAX_DESCRIPTION);
        assert!(gate.description.ends_with('…'));
        let short = CommitGate::new(GateState::Passed, "ok", None);
        assert_eq!(short.description, "ok");
    }
}
