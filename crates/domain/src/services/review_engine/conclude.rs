//! Concluding a round: rating, storing and posting the comments, the summary note.

use super::round::{FileResult, RoundPlan};
use super::{Failure, ReviewEngine};
use crate::model::ReviewId;
use crate::model::diff::{InlineComment, MergeRequestDiff};
use crate::model::gate::GateState;
use crate::model::review::{PlacedComment, Review, ReviewOutcome, ReviewStatus, RoundRef};
use crate::model::{Project, ReviewTask};
use crate::ports::{HostingPlatform, PlatformError};
use crate::review::markers::{AlreadyPosted, already_posted, comment_marker, summary_marker};
use crate::review::mr_summary::{self, MrSummary};
use crate::review::rating::{rating, score};
use crate::review::suppression::Suppression;
use std::collections::HashSet;
use uuid::Uuid;

impl ReviewEngine {
    /// Everything after the model answered: new comments stored and posted, the
    /// summary comment, the rating, the finished round.
    pub(super) async fn conclude(
        &self,
        task: &ReviewTask,
        plan: &RoundPlan,
        results: Vec<FileResult>,
        note: &MrSummary,
    ) -> Result<ReviewId, Failure> {
        let RoundPlan {
            project,
            platform,
            diff,
            review,
            round,
            number,
            head,
            applied,
            min_severity,
            ..
        } = plan;
        let (round, number) = (*round, *number);
        let reviewed = results.len();
        let failed = results.iter().filter(|r| !r.ok).count();
        if reviewed > 0 && failed == reviewed {
            let transient = results.iter().all(|r| r.ai_unavailable);
            let message = format!("all {reviewed} file(s) failed to review");
            self.finish_failed(review, round, head, &message).await?;
            return Err(Failure { transient, message });
        }

        let seen = self.reviews.fingerprints(review.id).await?;
        let all: Vec<PlacedComment> = results
            .iter()
            .flat_map(|r| r.comments.iter().cloned())
            .collect();
        let mut fresh_keys = HashSet::new();
        // The rating weighs every comment found; only those at or above the
        // repository's `minSeverity` are kept and posted.
        // So are comments this project's readers rejected often enough.
        let mut files: Vec<String> = all.iter().map(|c| c.file_path.clone()).collect();
        files.sort_unstable();
        files.dedup();
        let rejected = self.rejected_on(project, &files).await;
        let (fresh, left_out): (Vec<PlacedComment>, Vec<PlacedComment>) = all
            .iter()
            .filter(|c| min_severity.is_none_or(|min| c.severity >= min))
            .filter(|c| !seen.contains(&c.fingerprint) && fresh_keys.insert(c.fingerprint.clone()))
            .cloned()
            .partition(|c| !rejected.covers(&c.fingerprint, &c.file_path, &c.message));
        if !left_out.is_empty() {
            tracing::info!(review.id = %review.id, left_out = left_out.len(), "review.rejected_comments_left_out");
        }
        let ids = self.reviews.add_comments(review.id, round, &fresh).await?;

        let value = score(all.iter().map(|c| c.severity));
        let grade = rating(value);
        let summary = note.summary.clone();
        let note_text = mr_summary::render(note);
        let mut error_message =
            (failed > 0).then(|| format!("{failed} of {reviewed} file(s) could not be reviewed"));
        let mut summary_comment_id = review.summary_comment_id.clone();
        if task.send_to_platform {
            let already = self
                .already_posted(platform.as_ref(), project, task, review.id)
                .await?;
            let mut to_post = (Vec::new(), Vec::new());
            for (comment, id) in fresh.iter().zip(&ids) {
                match already.comments.get(&comment.fingerprint) {
                    // Posted by an interrupted attempt: recorded, not posted again.
                    Some(thread) => {
                        if let Err(e) = self.reviews.mark_posted(*id, thread.as_deref()).await {
                            tracing::warn!(error = %e, "review.mark_posted_failed");
                        }
                    }
                    None => {
                        to_post.0.push(comment.clone());
                        to_post.1.push(*id);
                    }
                }
            }
            if !already.comments.is_empty() {
                tracing::info!(review.id = %review.id, found = already.comments.len(), "review.found_posted_by_earlier_attempt");
            }
            summary_comment_id = summary_comment_id.or(already.summary);
            match self
                .post(
                    platform.as_ref(),
                    project,
                    task.mr_iid,
                    diff,
                    &to_post.0,
                    &to_post.1,
                )
                .await
            {
                Ok(()) => {}
                // The platform is down or throttling: redo the round later rather than
                // finish with comments nobody saw.
                Err(e @ (PlatformError::Unavailable(_) | PlatformError::RateLimited { .. })) => {
                    return Err(e.into());
                }
                Err(e) => {
                    tracing::warn!(review.id = %review.id, error = %e, "review.post_failed");
                    error_message = Some(format!("comments could not be posted: {e}"));
                }
            }
            let left_out_note = if left_out.is_empty() {
                String::new()
            } else {
                format!(
                    "\n{} comment(s) left out: readers of this project rejected them before.\n",
                    left_out.len()
                )
            };
            let body = format!(
                "{}{left_out_note}\n{}\n",
                summary_body(
                    number,
                    grade,
                    value,
                    &all,
                    fresh.len(),
                    &note_text,
                    reviewed,
                    failed,
                ),
                summary_marker(review.id)
            );
            summary_comment_id = self
                .upsert_summary(
                    platform.as_ref(),
                    project,
                    task.mr_iid,
                    summary_comment_id,
                    &body,
                )
                .await;
        }
        let outcome = ReviewOutcome {
            status: ReviewStatus::Completed,
            rating: Some(grade),
            score: Some(value),
            summary: Some(summary),
            comment_count: review.comment_count + i32::try_from(fresh.len()).unwrap_or(i32::MAX),
            reviewed_lines: i32::try_from(results.iter().map(|r| r.added_lines).sum::<usize>())
                .unwrap_or(i32::MAX),
            summary_comment_id,
            error_message,
            applied_rule_ids: applied.clone(),
        };
        self.reviews.finish(review.id, round, head, outcome).await?;
        self.finished(review.id, ReviewStatus::Completed);
        if task.send_to_platform && plan.gate.enabled {
            let at = (platform.as_ref(), project);
            if failed > 0 {
                // Code nobody reviewed does not pass: the file's retry (or the
                // next push) brings the verdict.
                let text = format!("{failed} of {reviewed} file(s) could not be reviewed");
                let state = (GateState::Errored, text.as_str());
                self.post_gate(at, head, state, Some(review.id)).await;
            } else {
                self.post_verdict(at, head, review.id, plan.gate, (grade, value))
                    .await;
            }
        }
        Ok(review.id)
    }

    /// The findings not to post on `project`; none when feedback is not tracked
    /// or cannot be read (a store hiccup must not hold the review up).
    async fn rejected_on(&self, project: &Project, files: &[String]) -> Suppression {
        let Some(feedback) = &self.feedback else {
            return Suppression::none();
        };
        feedback
            .suppressed(project, files)
            .await
            .unwrap_or_else(|e| {
                tracing::warn!(project.id = %project.id, error = %e, "review.rejections_unread");
                Suppression::none()
            })
    }

    pub(super) async fn finish_failed(
        &self,
        review: &Review,
        round: RoundRef,
        head: &str,
        message: &str,
    ) -> Result<(), Failure> {
        let outcome = ReviewOutcome::failed(review, message);
        self.reviews.finish(review.id, round, head, outcome).await?;
        Ok(())
    }

    pub(super) async fn post(
        &self,
        platform: &dyn HostingPlatform,
        project: &Project,
        iid: i64,
        diff: &MergeRequestDiff,
        comments: &[PlacedComment],
        ids: &[Uuid],
    ) -> Result<(), PlatformError> {
        if comments.is_empty() {
            return Ok(());
        }
        let inline: Vec<InlineComment> = comments
            .iter()
            .map(|c| InlineComment {
                file_path: c.file_path.clone(),
                old_path: c.old_path.clone(),
                line: c.line,
                body: format!(
                    "**{}**: {}\n\n{}",
                    c.severity.as_str(),
                    c.message,
                    comment_marker(&c.fingerprint)
                ),
                suggestion: c.suggestion.clone(),
            })
            .collect();
        let posted = platform
            .post_inline_comments(&project.platform_ref(), iid, &diff.refs, &inline)
            .await?;
        for (id, discussion) in ids.iter().zip(posted.iter()) {
            if let Err(e) = self.reviews.mark_posted(*id, discussion.as_deref()).await {
                tracing::warn!(error = %e, "review.mark_posted_failed");
            }
        }
        Ok(())
    }

    /// What an earlier attempt of this task left on the MR: nothing to look for on
    /// a first attempt. The platform out is a transient failure (the round is
    /// retried rather than risk posting twice); any other failure to list is
    /// logged and the round posts as if nothing were there.
    async fn already_posted(
        &self,
        platform: &dyn HostingPlatform,
        project: &Project,
        task: &ReviewTask,
        review_id: ReviewId,
    ) -> Result<AlreadyPosted, Failure> {
        if task.attempts <= 1 {
            return Ok(AlreadyPosted::default());
        }
        match platform
            .list_comments(&project.platform_ref(), task.mr_iid)
            .await
        {
            Ok(existing) => Ok(already_posted(&existing, review_id)),
            Err(e @ (PlatformError::Unavailable(_) | PlatformError::RateLimited { .. })) => {
                Err(e.into())
            }
            Err(e) => {
                tracing::warn!(task.id = %task.id, error = %e, "review.posted_comments_unreadable");
                Ok(AlreadyPosted::default())
            }
        }
    }

    /// Edits the summary comment in place, or posts it the first time. A failure
    /// costs only the summary comment, never the review.
    pub(super) async fn upsert_summary(
        &self,
        platform: &dyn HostingPlatform,
        project: &Project,
        iid: i64,
        existing: Option<String>,
        body: &str,
    ) -> Option<String> {
        let target = project.platform_ref();
        if let Some(id) = &existing {
            match platform.edit_comment(&target, iid, id, body).await {
                Ok(()) => return existing,
                Err(PlatformError::NotFound(_)) => {} // deleted by someone: post a new one
                Err(e) => {
                    tracing::warn!(error = %e, "review.summary_edit_failed");
                    return existing;
                }
            }
        }
        match platform.post_comment(&target, iid, body).await {
            Ok(id) => Some(id),
            Err(e) => {
                tracing::warn!(error = %e, "review.summary_post_failed");
                existing
            }
        }
    }
}

#[expect(
    clippy::too_many_arguments,
    reason = "the figures of one summary comment"
)]
pub(super) fn summary_body(
    round: i32,
    grade: crate::review::rating::Rating,
    value: u32,
    all: &[PlacedComment],
    new: usize,
    summary: &str,
    reviewed: usize,
    failed: usize,
) -> String {
    let count = |s: crate::review::rating::Severity| all.iter().filter(|c| c.severity == s).count();
    use crate::review::rating::Severity::{Error, Info, Warning};
    let mut body = format!(
        "### reviewd: rating {grade} ({value}/100)\n\nRound {round}: {reviewed} file(s) reviewed, {} error(s), {} warning(s), {} info; {new} new comment(s).\n",
        count(Error),
        count(Warning),
        count(Info)
    );
    if failed > 0 {
        body.push_str(&format!(
            "\n{failed} file(s) could not be reviewed this round.\n"
        ));
    }
    if !summary.is_empty() {
        body.push_str(&format!("\n{}\n", summary.trim_end()));
    }
    body
}
