//! GitHub's webhook payloads as its published examples show them (`@octokit/webhooks-examples`),
//! with only the fields reviewd reads. One struct serves every event reviewd handles (the
//! event's name comes in the `X-GitHub-Event` header), all fields optional, so one pass
//! reads any of them and a field of the wrong type is named by its path.

use reviewd_domain::model::webhook_payload::{WireId, WireIid};
use serde::Deserialize;
use serde::de::IgnoredAny;

#[derive(Debug, Deserialize)]
pub(super) struct Event {
    pub action: Option<String>,
    pub repository: Option<Repository>,
    pub pull_request: Option<PullRequest>,
    /// `issue_comment`: the issue (or pull request) commented on.
    pub issue: Option<Issue>,
    pub comment: Option<Comment>,
    /// `pull_request_review_thread`.
    pub thread: Option<Thread>,
    pub sender: Option<Account>,
    pub installation: Option<Installation>,
    /// `installation`: the repositories the App can reach.
    pub repositories: Option<Vec<RepositoryRef>>,
    /// `installation_repositories`.
    pub repositories_added: Option<Vec<RepositoryRef>>,
    pub repositories_removed: Option<Vec<RepositoryRef>>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Repository {
    pub id: Option<WireId>,
}

#[derive(Debug, Deserialize)]
pub(super) struct RepositoryRef {
    pub id: Option<u64>,
}

#[derive(Debug, Deserialize)]
pub(super) struct PullRequest {
    pub number: Option<WireIid>,
    pub head: Option<Head>,
    pub user: Option<Account>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Head {
    pub sha: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Account {
    pub login: Option<String>,
    pub id: Option<u64>,
    /// `User`, `Bot` or `Organization`.
    #[serde(rename = "type")]
    pub kind: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Issue {
    pub number: Option<WireIid>,
    /// Present (an object of links) when the issue is a pull request.
    pub pull_request: Option<IgnoredAny>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Comment {
    pub id: Option<u64>,
    pub user: Option<Account>,
    pub body: Option<String>,
    /// `OWNER`, `MEMBER`, `COLLABORATOR`, `CONTRIBUTOR`, `NONE`...
    pub author_association: Option<String>,
    /// Set on a review comment that answers another (the thread's first).
    pub in_reply_to_id: Option<u64>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Thread {
    #[serde(default)]
    pub comments: Vec<Comment>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Installation {
    pub id: Option<i64>,
    pub app_id: Option<i64>,
}
