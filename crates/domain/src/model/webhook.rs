//! Platform events, as the webhook receivers hand them to the domain.

use super::PlatformType;
use super::conversation::CommentAuthor;

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
    /// Whether the comment was made in a line comment's thread (a GitLab diff or
    /// discussion note, a GitHub review comment answering another): a reply that
    /// may judge one of reviewd's comments.
    pub in_thread: bool,
    /// Whether a review command in it counts: its author may ask for reviews
    /// (on hostB a collaborator; an edit never counts). A reply by anyone else
    /// still reaches the domain, as feedback.
    pub may_command: bool,
    /// The comment itself, when the payload names it: what a conversation with
    /// reviewd is recorded by.
    pub note: Option<NoteRef>,
}

/// A platform comment: its id, its thread and its author.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteRef {
    /// The platform's id of the comment (GitLab note id, GitHub comment id).
    pub id: String,
    /// The thread it is in: a GitLab discussion id; on GitHub the id of the review
    /// comment the thread started with (`in_reply_to_id`).
    pub thread_id: Option<String>,
    pub author: CommentAuthor,
}

/// Feedback on a line comment that the payload itself carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedbackEvent {
    pub platform_type: PlatformType,
    pub platform_project_id: String,
    pub iid: i64,
    /// The text of the comment judged: reviewd's carries its fingerprint marker.
    pub comment_body: String,
    pub kind: FeedbackEventKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FeedbackEventKind {
    /// An award emoji given (GitLab's `emoji` event) or taken back.
    Reaction {
        name: String,
        username: String,
        withdrawn: bool,
    },
    /// The comment's thread resolved or reopened (GitHub's
    /// `pull_request_review_thread` event).
    Resolution {
        username: Option<String>,
        resolved: bool,
    },
}

/// A GitHub App installation changed (hostB `installation` and
/// `installation_repositories` events).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallationEvent {
    pub installation_id: i64,
    /// The App it is an installation of, when the payload says.
    pub app_id: Option<i64>,
    pub change: InstallationChange,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstallationChange {
    /// Installed, unsuspended, or repositories added (their platform ids, as
    /// the payload lists them; none for an unsuspension): the installation's
    /// repositories are synced and these ones (none listed: every one the App
    /// reaches) enabled again.
    Available { repository_ids: Vec<String> },
    /// Repositories removed, or the installation deleted or suspended: these
    /// repositories' projects are disabled (none listed, as for a suspension:
    /// every project the App no longer reaches). Their history is kept.
    Unavailable { repository_ids: Vec<String> },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebhookEvent {
    MergeRequest(MergeRequestEvent),
    Comment(CommentEvent),
    Feedback(FeedbackEvent),
    Installation(InstallationEvent),
    /// Received but not acted on (other event kinds, comments on issues...).
    Ignored(String),
}

/// What a webhook delivery shows to prove who sent it.
#[derive(Debug, Clone, Copy)]
pub enum WebhookProof<'a> {
    /// The webhook secret itself (GitLab's `X-Gitlab-Token`).
    Token(&'a str),
    /// The hex HMAC-SHA256 of `body` under the secret (GitHub's `X-Hub-Signature-256`).
    Signature { hex: &'a str, body: &'a [u8] },
}
