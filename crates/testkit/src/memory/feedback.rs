//! Feedback records, keyed by their origin as the PostgreSQL store's unique index
//! keys them, and the sums over them.

use super::MemoryStore;
use super::tables::FeedbackRow;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::ReviewId;
use reviewd_domain::model::review_views::FeedbackItem;
use reviewd_domain::ports::{
    AcceptanceCounts, FeedbackRepository, FeedbackScope, FeedbackSource, FeedbackTarget,
    NewFeedback, RejectedFinding, RepoError,
};
use reviewd_domain::review::feedback::{CONCESSION_NOTE, TrackingStatus};
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

fn same_origin(
    row: &FeedbackRow,
    comment_id: Uuid,
    source: FeedbackSource,
    source_id: &str,
    username: Option<&str>,
) -> bool {
    row.comment_id == Some(comment_id)
        && row.source == source.as_str()
        && row.source_id == source_id
        && row.feedback.username.as_deref().unwrap_or("") == username.unwrap_or("")
}

#[async_trait]
impl FeedbackRepository for MemoryStore {
    async fn find_posted_comment(
        &self,
        project_id: ProjectId,
        mr_iid: i64,
        fingerprint: &str,
    ) -> Result<Option<FeedbackTarget>, RepoError> {
        let t = self.tables();
        Ok(t.comments
            .iter()
            .filter(|c| c.fingerprint == fingerprint && c.comment.posted_at.is_some())
            .filter(|c| {
                t.review(c.comment.review_id).is_ok_and(|r| {
                    r.detail.item.project_id == project_id && r.detail.item.mr_iid == mr_iid
                })
            })
            .max_by_key(|c| (c.comment.created_at, std::cmp::Reverse(c.comment.id)))
            .map(|c| FeedbackTarget {
                comment_id: c.comment.id,
                review_id: c.comment.review_id,
                file_path: c.comment.file_path.clone(),
                line_number: c.comment.line_number,
            }))
    }

    async fn record(&self, f: NewFeedback) -> Result<FeedbackItem, RepoError> {
        let now = self.now();
        let mut t = self.tables();
        let review_id = t
            .comments
            .iter()
            .find(|c| c.comment.id == f.comment_id)
            .map(|c| c.comment.review_id)
            .ok_or(RepoError::NotFound)?;
        let (source, username) = (f.source, f.username.as_deref());
        if let Some(row) = t
            .feedbacks
            .iter_mut()
            .find(|r| same_origin(r, f.comment_id, source, &f.source_id, username))
        {
            row.feedback.feedback_type = f.verdict.feedback_type;
            row.feedback.tracking_status = f.verdict.status;
            row.note = f.note;
            return Ok(row.feedback.clone());
        }
        let feedback = FeedbackItem {
            id: Uuid::new_v4(),
            feedback_type: f.verdict.feedback_type,
            tracking_status: f.verdict.status,
            username: f.username,
            created_at: now,
        };
        t.feedbacks.push(FeedbackRow {
            review_id,
            comment_id: Some(f.comment_id),
            feedback: feedback.clone(),
            source: source.as_str(),
            source_id: f.source_id,
            note: f.note,
        });
        Ok(feedback)
    }

    async fn sync_comment(
        &self,
        comment_id: Uuid,
        sources: &[FeedbackSource],
        records: Vec<NewFeedback>,
    ) -> Result<u64, RepoError> {
        let withdrawn = {
            let mut t = self.tables();
            if !t.comments.iter().any(|c| c.comment.id == comment_id) {
                return Err(RepoError::NotFound);
            }
            let before = t.feedbacks.len();
            t.feedbacks.retain(|row| {
                let ours = row.comment_id == Some(comment_id)
                    && sources.iter().any(|s| s.as_str() == row.source);
                !ours
                    || records.iter().any(|r| {
                        same_origin(
                            row,
                            comment_id,
                            r.source,
                            &r.source_id,
                            r.username.as_deref(),
                        )
                    })
            });
            (before - t.feedbacks.len()) as u64
        };
        for record in records {
            self.record(record).await?;
        }
        Ok(withdrawn)
    }

    async fn awaiting_fix(
        &self,
        review_id: ReviewId,
    ) -> Result<Vec<(String, FeedbackTarget)>, RepoError> {
        let t = self.tables();
        let implemented: HashSet<Uuid> = t
            .feedbacks
            .iter()
            .filter(|f| f.source == FeedbackSource::Implemented.as_str())
            .filter_map(|f| f.comment_id)
            .collect();
        let mut posted: Vec<_> = t
            .comments
            .iter()
            .filter(|c| c.comment.posted_at.is_some() && !implemented.contains(&c.comment.id))
            .filter_map(|c| {
                let round = t
                    .rounds
                    .iter()
                    .find(|r| r.review_id == review_id && r.round.id == c.round_id)?;
                Some((round.round.head_sha.clone(), &c.comment))
            })
            .collect();
        posted.sort_by_key(|(_, c)| (c.created_at, c.id));
        Ok(posted
            .into_iter()
            .map(|(head, c)| {
                let target = FeedbackTarget {
                    comment_id: c.id,
                    review_id: c.review_id,
                    file_path: c.file_path.clone(),
                    line_number: c.line_number,
                };
                (head, target)
            })
            .collect())
    }

    async fn commented_since(
        &self,
        since: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<(ProjectId, i64)>, RepoError> {
        let t = self.tables();
        let mut last: HashMap<(ProjectId, i64), DateTime<Utc>> = HashMap::new();
        for c in &t.comments {
            let Some(posted) = c.comment.posted_at.filter(|p| *p >= since) else {
                continue;
            };
            if let Ok(review) = t.review(c.comment.review_id) {
                let key = (review.detail.item.project_id, review.detail.item.mr_iid);
                let at = last.entry(key).or_insert(posted);
                *at = (*at).max(posted);
            }
        }
        let mut mrs: Vec<_> = last.into_iter().collect();
        mrs.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(mrs
            .into_iter()
            .take(limit as usize)
            .map(|(key, _)| key)
            .collect())
    }

    async fn withdraw(
        &self,
        comment_id: Uuid,
        source: FeedbackSource,
        source_id: &str,
        username: Option<&str>,
    ) -> Result<bool, RepoError> {
        let mut t = self.tables();
        let before = t.feedbacks.len();
        t.feedbacks
            .retain(|r| !same_origin(r, comment_id, source, source_id, username));
        Ok(t.feedbacks.len() < before)
    }

    async fn rejected_findings(
        &self,
        project_id: ProjectId,
        files: &[String],
    ) -> Result<Vec<RejectedFinding>, RepoError> {
        /// One fingerprint's rejections: by whom on which comment.
        struct Rejected<'a> {
            file_path: &'a str,
            message: &'a str,
            by: HashSet<(Uuid, &'a str)>,
            conceded: bool,
        }
        let t = self.tables();
        let mut rejected: HashMap<&str, Rejected<'_>> = HashMap::new();
        for row in &t.feedbacks {
            if row.feedback.tracking_status != TrackingStatus::Rejected {
                continue;
            }
            let Some(comment) = t
                .comments
                .iter()
                .find(|c| Some(c.comment.id) == row.comment_id)
            else {
                continue;
            };
            if !files.contains(&comment.comment.file_path)
                || !t
                    .review(comment.comment.review_id)
                    .is_ok_and(|r| r.detail.item.project_id == project_id)
            {
                continue;
            }
            let entry = rejected
                .entry(comment.fingerprint.as_str())
                .or_insert_with(|| Rejected {
                    file_path: &comment.comment.file_path,
                    message: &comment.comment.message,
                    by: HashSet::new(),
                    conceded: false,
                });
            // One rejection per comment and user, however many ways they said it.
            entry.by.insert((
                comment.comment.id,
                row.feedback.username.as_deref().unwrap_or(""),
            ));
            entry.conceded |= row.note.as_deref() == Some(CONCESSION_NOTE);
        }
        Ok(rejected
            .into_iter()
            .map(|(fingerprint, r)| RejectedFinding {
                fingerprint: fingerprint.to_owned(),
                file_path: r.file_path.to_owned(),
                message: r.message.to_owned(),
                rejections: r.by.len() as u64,
                conceded: r.conceded,
            })
            .collect())
    }

    async fn acceptance(&self, scope: FeedbackScope) -> Result<AcceptanceCounts, RepoError> {
        let t = self.tables();
        // Per comment: accepted, rejected, implemented.
        let mut per_comment: HashMap<Uuid, (u64, u64, u64)> = HashMap::new();
        for row in &t.feedbacks {
            let Some(comment) = row.comment_id else {
                continue;
            };
            let inside = match scope {
                FeedbackScope::All => true,
                FeedbackScope::Review(id) => row.review_id == id,
                FeedbackScope::Project(id) => t
                    .review(row.review_id)
                    .is_ok_and(|r| r.detail.item.project_id == id),
            };
            if !inside {
                continue;
            }
            let counts = per_comment.entry(comment).or_default();
            match row.feedback.tracking_status {
                TrackingStatus::Accepted => counts.0 += 1,
                TrackingStatus::Rejected => counts.1 += 1,
                TrackingStatus::Implemented => counts.2 += 1,
                TrackingStatus::Pending => {}
            }
        }
        let judged = per_comment
            .values()
            .filter(|(a, r, i)| a + r + i > 0)
            .count() as u64;
        let helped = per_comment
            .values()
            .filter(|(a, r, i)| *i > 0 || (*a > 0 && a >= r))
            .count() as u64;
        Ok(AcceptanceCounts { judged, helped })
    }
}
