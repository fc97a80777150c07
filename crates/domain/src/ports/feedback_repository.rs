//! Storage of the feedback that readers give reviewd's comments, and the sums
//! drawn from it.

use super::RepoError;
use crate::model::ProjectId;
use crate::model::ReviewId;
use crate::model::review_views::FeedbackItem;
use crate::review::feedback::Verdict;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// A posted comment that feedback attaches to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedbackTarget {
    pub comment_id: Uuid,
    pub review_id: ReviewId,
    pub file_path: String,
    pub line_number: i32,
}

/// Where a record came from. With the id of its origin and the user, it names
/// the record: the webhooks and the periodic pass may both see one reaction, and
/// it is recorded once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedbackSource {
    /// An award emoji or reaction; its id is the emoji's name.
    Reaction,
    /// A reply in the comment's thread; its id is the reply's.
    Reply,
    /// The thread was resolved; no id.
    Resolved,
    /// A later round changed the commented line; no id, no user.
    Implemented,
}

impl FeedbackSource {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            FeedbackSource::Reaction => "reaction",
            FeedbackSource::Reply => "reply",
            FeedbackSource::Resolved => "resolved",
            FeedbackSource::Implemented => "implemented",
        }
    }
}

/// A record to write (or to update, when one of the same origin exists).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewFeedback {
    pub comment_id: Uuid,
    pub verdict: Verdict,
    pub source: FeedbackSource,
    /// The origin's id (emoji name, reply id); empty when the source has none.
    pub source_id: String,
    pub username: Option<String>,
    /// The reply's text, when there is one (shortened by the caller).
    pub note: Option<String>,
}

/// What an acceptance rate is counted over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedbackScope {
    Review(ReviewId),
    Project(ProjectId),
    /// Every project.
    All,
}

/// A finding the project's readers rejected, by fingerprint: what it said, and
/// how often it was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RejectedFinding {
    pub fingerprint: String,
    pub file_path: String,
    /// One of the comments' messages (they all normalise to the fingerprint's).
    pub message: String,
    /// One per comment and user (a 👎 and a "won't fix" reply by one person on
    /// one comment are one rejection).
    pub rejections: u64,
    /// reviewd itself agreed in a thread that the finding was wrong
    /// ([`crate::review::feedback::CONCESSION_NOTE`]).
    pub conceded: bool,
}

/// Comments with a verdict, and those of them that helped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AcceptanceCounts {
    /// Comments with at least one accepted, rejected or implemented record.
    pub judged: u64,
    /// Of those: implemented, or accepted at least as often as rejected.
    pub helped: u64,
}

#[async_trait]
pub trait FeedbackRepository: Send + Sync {
    /// The newest posted comment of the project's MR with this fingerprint (the
    /// marker every posted comment carries).
    ///
    /// # Errors
    /// Only store failures.
    async fn find_posted_comment(
        &self,
        project_id: ProjectId,
        mr_iid: i64,
        fingerprint: &str,
    ) -> Result<Option<FeedbackTarget>, RepoError>;

    /// Records `feedback`, or updates the verdict and note of the record of the
    /// same comment, source, source id and user. Returns the record.
    ///
    /// # Errors
    /// `NotFound` for an unknown comment; store failures.
    async fn record(&self, feedback: NewFeedback) -> Result<FeedbackItem, RepoError>;

    /// Removes the record of this origin (a reaction taken back); whether there
    /// was one.
    ///
    /// # Errors
    /// Only store failures.
    async fn withdraw(
        &self,
        comment_id: Uuid,
        source: FeedbackSource,
        source_id: &str,
        username: Option<&str>,
    ) -> Result<bool, RepoError>;

    /// Makes the comment's records of `sources` exactly `records`: each is
    /// recorded as [`FeedbackRepository::record`] does, and the others of those
    /// sources are withdrawn (a reaction taken back, a thread reopened, a reply
    /// edited into saying nothing). Returns how many were withdrawn.
    ///
    /// # Errors
    /// `NotFound` for an unknown comment; store failures.
    async fn sync_comment(
        &self,
        comment_id: Uuid,
        sources: &[FeedbackSource],
        records: Vec<NewFeedback>,
    ) -> Result<u64, RepoError>;

    /// The review's posted comments not yet marked implemented, each with the
    /// head of the round that posted it (its line numbers are that head's),
    /// oldest first: those a later round's diff may have acted on.
    ///
    /// # Errors
    /// Only store failures.
    async fn awaiting_fix(
        &self,
        review_id: ReviewId,
    ) -> Result<Vec<(String, FeedbackTarget)>, RepoError>;

    /// The merge requests (project, iid) whose reviews posted comments since
    /// `since`, most recent first, at most `limit`: what the periodic pass reads.
    ///
    /// # Errors
    /// Only store failures.
    async fn commented_since(
        &self,
        since: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<(ProjectId, i64)>, RepoError>;

    /// The project's rejected findings on `files`, on any of its reviews, one
    /// per fingerprint (a finding is only ever like another on its own file).
    ///
    /// # Errors
    /// Only store failures.
    async fn rejected_findings(
        &self,
        project_id: ProjectId,
        files: &[String],
    ) -> Result<Vec<RejectedFinding>, RepoError>;

    /// # Errors
    /// Only store failures.
    async fn acceptance(&self, scope: FeedbackScope) -> Result<AcceptanceCounts, RepoError>;
}
