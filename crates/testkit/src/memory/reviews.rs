//! `ReviewRepository` in memory: reviews, their rounds, files and comments, and the
//! AI call log, as the engine writes them.

use super::MemoryStore;
use super::Tables;
use super::tables::{AiCallRow, CommentRow, FileRow, ReviewRow, RoundRow};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::review::{
    AiCallRecord, FileProgress, NewReview, NewReviewFile, PlacedComment, Review, ReviewOutcome,
    ReviewStatus, RoundRef,
};
use reviewd_domain::model::review::{AiCallStatus, FileStatus};
use reviewd_domain::model::review_views::{
    AiLogItem, CommentItem, FileItem, ReviewDetail, ReviewListItem, RoundItem, TokenTotals,
};
use reviewd_domain::model::{ReviewFileId, ReviewId};
use reviewd_domain::ports::{RepoError, ReviewRepository};
use reviewd_domain::review::feedback::CONCESSION_NOTE;
use reviewd_domain::review::gate::StandingFindings;
use std::collections::HashSet;
use uuid::Uuid;

fn status_of(row: &ReviewRow) -> ReviewStatus {
    row.detail.item.status
}

fn to_review(row: &ReviewRow) -> Review {
    let d = &row.detail;
    Review {
        id: d.item.id,
        project_id: d.item.project_id,
        mr_iid: d.item.mr_iid,
        status: status_of(row),
        head_commit_sha: d.head_commit_sha.clone(),
        round_number: d.round_number,
        summary_comment_id: row.summary_comment_id.clone(),
        comment_count: d.item.comment_count,
        grade: d
            .item
            .overall_rating
            .zip(d.score.map(|s| u32::try_from(s).unwrap_or(0))),
        error_message: d.error_message.clone(),
    }
}

fn clamp32(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

impl Tables {
    pub(super) fn review(&self, id: ReviewId) -> Result<&ReviewRow, RepoError> {
        self.reviews
            .iter()
            .find(|r| r.detail.item.id == id)
            .ok_or(RepoError::NotFound)
    }

    fn review_mut(&mut self, id: ReviewId) -> Result<&mut ReviewRow, RepoError> {
        self.reviews
            .iter_mut()
            .find(|r| r.detail.item.id == id)
            .ok_or(RepoError::NotFound)
    }

    fn round_number(&self, round_id: Uuid) -> Result<i32, RepoError> {
        self.rounds
            .iter()
            .find(|r| r.round.id == round_id)
            .map(|r| r.round.round_number)
            .ok_or(RepoError::NotFound)
    }

    /// Deletes a round and, as the foreign keys cascade, its files, its comments and
    /// the feedback on them.
    fn delete_round(&mut self, review_id: ReviewId, number: i32) {
        let Some(i) = self
            .rounds
            .iter()
            .position(|r| r.review_id == review_id && r.round.round_number == number)
        else {
            return;
        };
        let round_id = self.rounds.remove(i).round.id;
        self.files.retain(|f| f.round_id != round_id);
        let gone: HashSet<Uuid> = self
            .comments
            .iter()
            .filter(|c| c.round_id == round_id)
            .map(|c| c.comment.id)
            .collect();
        self.comments.retain(|c| c.round_id != round_id);
        self.feedbacks
            .retain(|f| f.comment_id.is_none_or(|c| !gone.contains(&c)));
    }
}

fn new_row(r: NewReview, now: DateTime<Utc>) -> ReviewRow {
    ReviewRow {
        detail: ReviewDetail {
            item: ReviewListItem {
                id: ReviewId::new_v4(),
                project_id: r.project_id,
                project_name: r.project_name,
                mr_iid: r.mr_iid,
                mr_title: r.mr_title,
                mr_url: r.mr_url,
                status: ReviewStatus::Pending,
                ai_provider: r.ai_provider,
                ai_model: r.ai_model,
                comment_count: 0,
                triggered_by: r.triggered_by,
                overall_rating: None,
                summary: None,
                created_at: now,
                completed_at: None,
            },
            base_commit_sha: r.base_commit_sha,
            head_commit_sha: r.head_commit_sha,
            start_commit_sha: r.start_commit_sha,
            round_number: 1,
            applied_rule_ids: Vec::new(),
            reviewed_lines: 0,
            score: None,
            source_branch: r.source_branch,
            target_branch: r.target_branch,
            author_username: r.author_username,
            error_message: None,
            started_at: Some(now),
            cost_usd: None,
            tokens: TokenTotals::default(),
        },
        summary_comment_id: None,
    }
}

fn comment_row(
    review_id: ReviewId,
    round: RoundRef,
    c: &PlacedComment,
    now: DateTime<Utc>,
) -> CommentRow {
    CommentRow {
        round_id: round.id,
        fingerprint: c.fingerprint.clone(),
        comment: CommentItem {
            id: Uuid::new_v4(),
            review_id,
            file_path: c.file_path.clone(),
            line_number: i32::try_from(c.line).unwrap_or(i32::MAX),
            severity: c.severity,
            message: c.message.clone(),
            gitlab_discussion_id: None,
            round_number: round.number,
            posted_at: None,
            created_at: now,
            suggestion: c.suggestion.clone(),
        },
    }
}

fn write_outcome(
    row: &mut ReviewRow,
    round: RoundRef,
    head: &str,
    o: ReviewOutcome,
    now: DateTime<Utc>,
) {
    let d = &mut row.detail;
    d.item.status = o.status;
    d.item.overall_rating = o.rating;
    d.item.summary = o.summary;
    d.item.comment_count = o.comment_count;
    d.item.completed_at = Some(now);
    d.score = o.score.map(clamp32);
    d.reviewed_lines = o.reviewed_lines;
    d.error_message = o.error_message;
    d.head_commit_sha = head.to_owned();
    d.applied_rule_ids = o.applied_rule_ids;
    d.round_number = round.number;
    row.summary_comment_id = o.summary_comment_id;
}

#[async_trait]
impl ReviewRepository for MemoryStore {
    async fn find_for_mr(
        &self,
        project_id: ProjectId,
        mr_iid: i64,
    ) -> Result<Option<Review>, RepoError> {
        let t = self.tables();
        // `max_by_key` keeps the last of equal keys: the newest row on a frozen clock.
        Ok(t.reviews
            .iter()
            .filter(|r| r.detail.item.project_id == project_id && r.detail.item.mr_iid == mr_iid)
            .max_by_key(|r| r.detail.item.created_at)
            .map(to_review))
    }

    async fn get(&self, id: ReviewId) -> Result<Review, RepoError> {
        self.tables().review(id).map(to_review)
    }

    async fn file_ref(
        &self,
        review_id: ReviewId,
        file_id: ReviewFileId,
    ) -> Result<(String, Option<String>, RoundRef), RepoError> {
        let t = self.tables();
        let f = t
            .files
            .iter()
            .find(|f| f.file.id == file_id && f.review_id == review_id)
            .ok_or(RepoError::NotFound)?;
        let number = t.round_number(f.round_id)?;
        Ok((
            f.file.file_path.clone(),
            f.file.old_path.clone(),
            RoundRef {
                id: f.round_id,
                number,
            },
        ))
    }

    async fn add_comment_count(&self, review_id: ReviewId, delta: i32) -> Result<(), RepoError> {
        if let Ok(r) = self.tables().review_mut(review_id) {
            r.detail.item.comment_count += delta;
        }
        Ok(())
    }

    async fn last_completed_round(
        &self,
        review_id: ReviewId,
    ) -> Result<Option<(i32, String)>, RepoError> {
        Ok(self
            .tables()
            .rounds
            .iter()
            .filter(|r| r.review_id == review_id && r.round.completed_at.is_some())
            .max_by_key(|r| r.round.round_number)
            .map(|r| (r.round.round_number, r.round.head_sha.clone())))
    }

    async fn create(&self, review: NewReview) -> Result<Review, RepoError> {
        let now = self.now();
        let mut t = self.tables();
        if !t.projects.iter().any(|p| p.id == review.project_id) {
            return Err(RepoError::NotFound);
        }
        let row = new_row(review, now);
        let created = to_review(&row);
        t.reviews.push(row);
        Ok(created)
    }

    async fn start_round(
        &self,
        review_id: ReviewId,
        number: i32,
        differential: bool,
        base_sha: Option<&str>,
        head_sha: &str,
    ) -> Result<RoundRef, RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let review = t.review_mut(review_id)?;
        review.detail.item.status = ReviewStatus::Pending;
        review.detail.error_message = None;
        review.detail.started_at = Some(now);
        // A retried attempt redoes its round: what the failed attempt stored goes.
        t.delete_round(review_id, number);
        let round = RoundItem {
            id: Uuid::new_v4(),
            round_number: number,
            is_differential: differential,
            base_sha: base_sha.map(str::to_owned),
            head_sha: head_sha.to_owned(),
            file_count: 0,
            comment_count: 0,
            created_at: now,
            completed_at: None,
            context: None,
        };
        let id = round.id;
        t.rounds.push(RoundRow { review_id, round });
        Ok(RoundRef { id, number })
    }

    async fn add_file(
        &self,
        review_id: ReviewId,
        round: RoundRef,
        file: NewReviewFile,
    ) -> Result<ReviewFileId, RepoError> {
        let mut t = self.tables();
        t.review(review_id)?;
        let round_number = t.round_number(round.id)?;
        if t.files
            .iter()
            .any(|f| f.round_id == round.id && f.file.file_path == file.file_path)
        {
            return Err(RepoError::Conflict("review_files_round_path_key".into()));
        }
        let id = ReviewFileId::new_v4();
        t.files.push(FileRow {
            review_id,
            round_id: round.id,
            file: FileItem {
                id,
                file_path: file.file_path,
                old_path: file.old_path,
                change_type: file.change_type,
                summary: None,
                comment_count: 0,
                status: file.status,
                prompt_summary: None,
                error_message: None,
                attempts: 0,
                round_number,
                started_at: None,
                completed_at: None,
                context: None,
            },
        });
        Ok(id)
    }

    async fn update_file(&self, file_id: ReviewFileId, p: FileProgress) -> Result<(), RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let f = &mut t
            .files
            .iter_mut()
            .find(|f| f.file.id == file_id)
            .ok_or(RepoError::NotFound)?
            .file;
        let finished = p.status.finished();
        f.status = p.status;
        f.summary = p.summary;
        f.comment_count = p.comment_count;
        f.prompt_summary = p.prompt_summary;
        f.error_message = p.error_message;
        f.completed_at = finished.then_some(now);
        if p.context.is_some() {
            f.context = p.context;
        }
        if p.status == FileStatus::Processing {
            f.started_at = Some(now);
            f.attempts += 1;
        }
        Ok(())
    }

    async fn record_round_context(
        &self,
        round_id: Uuid,
        stats: &reviewd_domain::context::ContextStats,
    ) -> Result<(), RepoError> {
        let mut t = self.tables();
        let round = t
            .rounds
            .iter_mut()
            .find(|r| r.round.id == round_id)
            .ok_or(RepoError::NotFound)?;
        round.round.context = Some(stats.clone());
        Ok(())
    }

    async fn fingerprints(&self, review_id: ReviewId) -> Result<HashSet<String>, RepoError> {
        let t = self.tables();
        let completed: HashSet<Uuid> = t
            .rounds
            .iter()
            .filter(|r| r.review_id == review_id && r.round.completed_at.is_some())
            .map(|r| r.round.id)
            .collect();
        // What was said: posted, or kept by a completed round (reviews not sent to the
        // platform). Comments of an unfinished attempt do not count: its redo says them.
        Ok(t.comments
            .iter()
            .filter(|c| c.comment.review_id == review_id)
            .filter(|c| c.comment.posted_at.is_some() || completed.contains(&c.round_id))
            .map(|c| c.fingerprint.clone())
            .collect())
    }

    async fn add_comments(
        &self,
        review_id: ReviewId,
        round: RoundRef,
        comments: &[PlacedComment],
    ) -> Result<Vec<Uuid>, RepoError> {
        if comments.is_empty() {
            return Ok(Vec::new());
        }
        // One statement in PostgreSQL: one `now()` for every row.
        let now = self.now();
        let mut t = self.tables();
        t.review(review_id)?;
        let number = t.round_number(round.id)?;
        let round = RoundRef { number, ..round };
        if !comments
            .iter()
            .all(|c| t.files.iter().any(|f| f.file.id == c.file_id))
        {
            return Err(RepoError::NotFound);
        }
        let rows: Vec<CommentRow> = comments
            .iter()
            .map(|c| comment_row(review_id, round, c, now))
            .collect();
        let ids = rows.iter().map(|r| r.comment.id).collect();
        t.comments.extend(rows);
        Ok(ids)
    }

    async fn mark_posted(
        &self,
        comment_id: Uuid,
        discussion_id: Option<&str>,
    ) -> Result<(), RepoError> {
        let now = self.now();
        let mut t = self.tables();
        if let Some(c) = t.comments.iter_mut().find(|c| c.comment.id == comment_id) {
            c.comment.gitlab_discussion_id = discussion_id.map(str::to_owned);
            c.comment.posted_at = Some(now);
        }
        Ok(())
    }

    async fn finish(
        &self,
        review_id: ReviewId,
        round: RoundRef,
        head_sha: &str,
        outcome: ReviewOutcome,
    ) -> Result<(), RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let count = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
        let comments = count(t.comments.iter().filter(|c| c.round_id == round.id).count());
        let files = count(t.files.iter().filter(|f| f.round_id == round.id).count());
        // Only a completed review completes its round: a failed round is redone.
        let completed_at = (outcome.status == ReviewStatus::Completed).then_some(now);
        write_outcome(t.review_mut(review_id)?, round, head_sha, outcome, now);
        if let Some(r) = t.rounds.iter_mut().find(|r| r.round.id == round.id) {
            r.round.completed_at = completed_at;
            r.round.comment_count = comments;
            r.round.file_count = files;
        }
        Ok(())
    }

    async fn standing_findings(&self, review_id: ReviewId) -> Result<StandingFindings, RepoError> {
        let reviews = self.tables();
        let settled = |comment: Uuid| {
            reviews.feedbacks.iter().any(|f| {
                f.comment_id == Some(comment)
                    && (matches!(f.source, "implemented" | "resolved")
                        || f.note.as_deref() == Some(CONCESSION_NOTE))
            })
        };
        let mut standing = StandingFindings::default();
        for row in reviews
            .comments
            .iter()
            .filter(|r| r.comment.review_id == review_id && !settled(r.comment.id))
        {
            standing.add(row.comment.severity, 1);
        }
        Ok(standing)
    }

    async fn log_ai_call(&self, call: AiCallRecord) -> Result<(), RepoError> {
        let now = self.now();
        let mut t = self.tables();
        if let Some(id) = call.review_id {
            t.review(id)?;
        }
        t.ai_calls.push(AiCallRow {
            review_id: call.review_id,
            call: AiLogItem {
                id: Uuid::new_v4(),
                provider: call.provider,
                model: call.model,
                status: if call.success {
                    AiCallStatus::Success
                } else {
                    AiCallStatus::Failed
                },
                duration_ms: i64::try_from(call.duration_ms).unwrap_or(i64::MAX),
                prompt_tokens: clamp32(call.prompt_tokens),
                completion_tokens: clamp32(call.completion_tokens),
                total_tokens: clamp32(call.total_tokens),
                cached_tokens: clamp32(call.cached_tokens),
                cost_usd: call.cost_usd,
                file_path: call.file_path,
                error_message: call.error_message,
                created_at: now,
            },
        });
        Ok(())
    }
}
