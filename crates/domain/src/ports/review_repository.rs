use super::RepoError;
use crate::model::ProjectId;
use crate::model::review::{
    AiCallRecord, FileProgress, NewReview, NewReviewFile, PlacedComment, Review, ReviewOutcome,
    RoundRef,
};
use crate::model::{ReviewFileId, ReviewId};
use crate::review::gate::StandingFindings;
use async_trait::async_trait;
use std::collections::HashSet;
use uuid::Uuid;

/// Storage of reviews as the engine writes them.
#[async_trait]
pub trait ReviewRepository: Send + Sync {
    /// The review of this MR, if there is one (rounds accumulate on it).
    ///
    /// # Errors
    /// Only store failures.
    async fn find_for_mr(
        &self,
        project_id: ProjectId,
        mr_iid: i64,
    ) -> Result<Option<Review>, RepoError>;

    /// # Errors
    /// `NotFound` for an unknown review.
    async fn get(&self, id: ReviewId) -> Result<Review, RepoError>;

    /// The path, old path and round of a file of this review.
    ///
    /// # Errors
    /// `NotFound` when the review has no such file.
    async fn file_ref(
        &self,
        review_id: ReviewId,
        file_id: ReviewFileId,
    ) -> Result<(String, Option<String>, RoundRef), RepoError>;

    /// Adds to the review's comment count (after a file retry).
    ///
    /// # Errors
    /// Store failures.
    async fn add_comment_count(&self, review_id: ReviewId, delta: i32) -> Result<(), RepoError>;

    /// The number and head of the review's last completed round, if any.
    ///
    /// # Errors
    /// Store failures.
    async fn last_completed_round(
        &self,
        review_id: ReviewId,
    ) -> Result<Option<(i32, String)>, RepoError>;

    /// # Errors
    /// `NotFound` when the project is gone.
    async fn create(&self, review: NewReview) -> Result<Review, RepoError>;

    /// Opens round `number` for `head_sha` and sets the review back to `pending`. A
    /// round `number` that exists already (a failed or interrupted attempt) is
    /// replaced: its files, comments and feedback go, so the engine can redo it.
    ///
    /// # Errors
    /// `NotFound` for an unknown review; `Conflict` only when two calls race.
    async fn start_round(
        &self,
        review_id: ReviewId,
        number: i32,
        differential: bool,
        base_sha: Option<&str>,
        head_sha: &str,
    ) -> Result<RoundRef, RepoError>;

    /// # Errors
    /// Store failures.
    async fn add_file(
        &self,
        review_id: ReviewId,
        round: RoundRef,
        file: NewReviewFile,
    ) -> Result<ReviewFileId, RepoError>;

    /// Records a file's progress as it happens.
    ///
    /// # Errors
    /// `NotFound` for an unknown file.
    async fn update_file(
        &self,
        file_id: ReviewFileId,
        progress: FileProgress,
    ) -> Result<(), RepoError>;

    /// Records what gathering the round's context cost and found.
    ///
    /// # Errors
    /// `NotFound` for an unknown round.
    async fn record_round_context(
        &self,
        round_id: Uuid,
        stats: &crate::context::ContextStats,
    ) -> Result<(), RepoError>;

    /// Fingerprints of the comments stored for the review in earlier rounds.
    ///
    /// # Errors
    /// Store failures.
    async fn fingerprints(&self, review_id: ReviewId) -> Result<HashSet<String>, RepoError>;

    /// Stores comments; returns their ids in order.
    ///
    /// # Errors
    /// Store failures.
    async fn add_comments(
        &self,
        review_id: ReviewId,
        round: RoundRef,
        comments: &[PlacedComment],
    ) -> Result<Vec<Uuid>, RepoError>;

    /// Records where a comment was posted (the hostA discussion id, when there is one).
    ///
    /// # Errors
    /// Store failures.
    async fn mark_posted(
        &self,
        comment_id: Uuid,
        discussion_id: Option<&str>,
    ) -> Result<(), RepoError>;

    /// Closes the round and writes the outcome on the review.
    ///
    /// # Errors
    /// `NotFound` for an unknown review.
    async fn finish(
        &self,
        review_id: ReviewId,
        round: RoundRef,
        head_sha: &str,
        outcome: ReviewOutcome,
    ) -> Result<(), RepoError>;

    /// The review's findings that still stand (in any round; not implemented, not
    /// resolved, not conceded by reviewd: a reader's rejection does not settle
    /// one), by severity: what the merge gate weighs.
    ///
    /// # Errors
    /// Only store failures.
    async fn standing_findings(&self, review_id: ReviewId) -> Result<StandingFindings, RepoError>;

    /// # Errors
    /// Store failures.
    async fn log_ai_call(&self, call: AiCallRecord) -> Result<(), RepoError>;
}
