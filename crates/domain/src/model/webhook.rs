//! Platform events, as the webhook receivers hand them to the domain.

use super::PlatformType;

/// What happened to a merge/pull request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MrAction {
    Opened,
    Reopened,
    /// New commits or other changes worth a review.
    Updated,
    /// An update that only changed assignees or reviewers: never reviewed.
    AssignmentOnly,
    /// Any other action (closed, merged, labeled...), named for the log.
    Other(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeRequestEvent {
    pub platform_type: PlatformType,
    pub platform_project_id: String,
    pub iid: i64,
    pub action: MrAction,
    pub head_sha: Option<String>,
    pub author_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommentEvent {
    pub platform_type: PlatformType,
    pub platform_project_id: String,
    pub iid: i64,
    pub body: String,
    pub head_sha: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebhookEvent {
    MergeRequest(MergeRequestEvent),
    Comment(CommentEvent),
    /// Received but not acted on (other event kinds, comments on issues...).
    Ignored(String),
}
