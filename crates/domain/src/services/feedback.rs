//! Feedback on reviewd's line comments, gathered two ways: by reading an MR's
//! threads from its platform (after a webhook says a thread of reviewd's got a
//! reaction, a reply or a resolution, and in the periodic pass over the last
//! days' reviews, for what no webhook announces), and from a later round's diff
//! (the commented line changed: implemented). The platform adapters return only
//! threads that reviewd's own account started, so a copied marker judges nothing. The sums drawn from it give the
//! acceptance rates, and a finding a project rejected twice (or that reviewd
//! conceded) is not posted there again, however it is worded.

use super::ServiceError;
use super::projects::ProjectService;
use crate::model::Project;
use crate::model::ProjectId;
use crate::model::ReviewId;
use crate::model::diff::{CommentThread, FileDiff};
use crate::ports::{
    AcceptanceCounts, FeedbackRepository, FeedbackScope, FeedbackSource, FeedbackTarget,
    HostingPlatform, NewFeedback, PlatformError, ProjectRef,
};
use crate::review::feedback::{IMPLEMENTED, Signal, acceptance_rate, changed_old_lines, verdict};
use crate::review::markers::{CONCEDED, comment_fingerprint, is_answer};
use crate::review::suppression::Suppression;
use chrono::{DateTime, Utc};
use std::sync::Arc;

/// The sources a platform's threads show; `implemented` comes from reviewd's
/// own rounds, and reading the threads leaves it alone.
const PLATFORM_SOURCES: [FeedbackSource; 3] = [
    FeedbackSource::Reaction,
    FeedbackSource::Reply,
    FeedbackSource::Resolved,
];

/// Heads older than the previous one that a round compares with its own to find
/// fixes of their comments.
pub const MAX_OLDER_HEADS: usize = 5;

/// Characters of a reply kept as the record's note.
const NOTE_CHARS: usize = 500;

/// What reading one MR's threads did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Collected {
    /// reviewd's threads found on the MR that match a stored comment.
    pub threads: usize,
    /// Records written or confirmed.
    pub recorded: usize,
    /// Records taken back (a reaction removed, a thread reopened...).
    pub withdrawn: u64,
}

/// What one periodic pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PassReport {
    pub merge_requests: usize,
    pub failed: usize,
    pub collected: Collected,
}

pub struct FeedbackService {
    store: Arc<dyn FeedbackRepository>,
    projects: Arc<ProjectService>,
}

impl FeedbackService {
    pub fn new(store: Arc<dyn FeedbackRepository>, projects: Arc<ProjectService>) -> Self {
        Self { store, projects }
    }

    /// Reads the MR's threads from its platform and makes the records of each of
    /// reviewd's comments there match what the thread shows now.
    ///
    /// # Errors
    /// `NotFound` for an unknown project; platform and store failures.
    pub async fn collect(
        &self,
        project_id: ProjectId,
        iid: i64,
    ) -> Result<Collected, ServiceError> {
        let (project, platform) = self.projects.with_platform(project_id).await?;
        let threads = match platform.comment_threads(&project.platform_ref(), iid).await {
            Ok(threads) => threads,
            Err(PlatformError::Unsupported(_)) => return Ok(Collected::default()),
            Err(e) => return Err(e.into()),
        };
        let mut collected = Collected::default();
        for thread in &threads {
            let Some(fingerprint) = comment_fingerprint(&thread.body) else {
                continue;
            };
            let Some(target) = self
                .store
                .find_posted_comment(project.id, iid, fingerprint)
                .await?
            else {
                continue;
            };
            let records = records_of(&target, thread);
            collected.threads += 1;
            collected.recorded += records.len();
            collected.withdrawn += self
                .store
                .sync_comment(target.comment_id, &PLATFORM_SOURCES, records)
                .await?;
        }
        tracing::info!(project.id = %project.id, mr.iid = iid, threads = collected.threads, recorded = collected.recorded, withdrawn = collected.withdrawn, "feedback.collected");
        Ok(collected)
    }

    /// The periodic pass: reads the threads of every MR whose reviews posted
    /// comments since `since` (at most `limit` MRs, the latest first). One MR
    /// failing does not stop the others.
    ///
    /// # Errors
    /// Only a failure to list the MRs.
    pub async fn collect_recent(
        &self,
        since: DateTime<Utc>,
        limit: u32,
    ) -> Result<PassReport, ServiceError> {
        let mrs = self.store.commented_since(since, limit).await?;
        let mut report = PassReport {
            merge_requests: mrs.len(),
            ..PassReport::default()
        };
        for (project_id, iid) in mrs {
            match self.collect(project_id, iid).await {
                Ok(c) => {
                    report.collected.threads += c.threads;
                    report.collected.recorded += c.recorded;
                    report.collected.withdrawn += c.withdrawn;
                }
                Err(e) => {
                    report.failed += 1;
                    tracing::warn!(project.id = %project_id, mr.iid = iid, error = %e, "feedback.collect_failed");
                }
            }
        }
        Ok(report)
    }

    /// A new round of the review, at `new_head`: the posted comments whose line
    /// the code since their round's head removes or replaces are marked
    /// implemented. `previous` is the diff the round already fetched from the
    /// previous head; comments of older rounds cost one comparison per head (the
    /// latest [`MAX_OLDER_HEADS`]). A head the platform no longer has (a
    /// force-push) or a failed comparison is skipped: this is bookkeeping, and it
    /// never holds the review up. Returns how many were marked.
    ///
    /// # Errors
    /// Store failures.
    pub async fn mark_implemented(
        &self,
        platform: &dyn HostingPlatform,
        project: &ProjectRef,
        review_id: ReviewId,
        new_head: &str,
        previous: (&str, &[FileDiff]),
    ) -> Result<usize, ServiceError> {
        let awaiting = self.store.awaiting_fix(review_id).await?;
        let mut heads: Vec<&str> = Vec::new();
        for (head, _) in awaiting.iter().rev() {
            if head != new_head && !heads.contains(&head.as_str()) {
                heads.push(head);
            }
        }
        let mut marked = 0;
        let mut older = 0;
        for head in heads {
            let fetched;
            let files: &[FileDiff] = if head == previous.0 {
                previous.1
            } else if older < MAX_OLDER_HEADS {
                older += 1;
                match platform.compare(project, head, new_head).await {
                    Ok(files) => {
                        fetched = files;
                        &fetched
                    }
                    Err(e) => {
                        tracing::info!(review.id = %review_id, head, error = %e, "feedback.head_not_compared");
                        continue;
                    }
                }
            } else {
                continue;
            };
            let fixed = awaiting
                .iter()
                .filter(|(h, target)| h == head && line_changed(target, files));
            for (_, target) in fixed {
                self.store
                    .record(NewFeedback {
                        comment_id: target.comment_id,
                        verdict: IMPLEMENTED,
                        source: FeedbackSource::Implemented,
                        source_id: String::new(),
                        username: None,
                        note: None,
                    })
                    .await?;
                marked += 1;
            }
        }
        if marked > 0 {
            tracing::info!(review.id = %review_id, marked, "feedback.implemented");
        }
        Ok(marked)
    }

    /// The findings the project's readers rejected on `files`, to leave out of
    /// its later reviews however they are worded; none when the project turned
    /// that off.
    ///
    /// # Errors
    /// Store failures.
    pub async fn suppressed(
        &self,
        project: &Project,
        files: &[String],
    ) -> Result<Suppression, ServiceError> {
        if !project.suppress_rejected || files.is_empty() {
            return Ok(Suppression::none());
        }
        Ok(Suppression::new(
            self.store.rejected_findings(project.id, files).await?,
        ))
    }

    /// The share of judged comments that helped; `None` before any verdict.
    ///
    /// # Errors
    /// Store failures.
    pub async fn acceptance_rate(&self, scope: FeedbackScope) -> Result<Option<f64>, ServiceError> {
        let counts = self.acceptance(scope).await?;
        Ok(acceptance_rate(counts.helped, counts.judged))
    }

    /// The judged comments and those of them that helped.
    ///
    /// # Errors
    /// Store failures.
    pub async fn acceptance(&self, scope: FeedbackScope) -> Result<AcceptanceCounts, ServiceError> {
        Ok(self.store.acceptance(scope).await?)
    }
}

/// The records a thread makes for its comment: each reaction and reply with a
/// verdict, and the resolution.
fn records_of(target: &FeedbackTarget, thread: &CommentThread) -> Vec<NewFeedback> {
    let record = |signal, source, source_id: &str, username: Option<&str>, note: Option<&str>| {
        verdict(signal).map(|verdict| NewFeedback {
            comment_id: target.comment_id,
            verdict,
            source,
            source_id: source_id.to_owned(),
            username: username.map(str::to_owned),
            note: note.map(|n| n.chars().take(NOTE_CHARS).collect()),
        })
    };
    let reactions = thread.reactions.iter().filter_map(|r| {
        record(
            Signal::Reaction(&r.name),
            FeedbackSource::Reaction,
            &r.name,
            Some(&r.username),
            None,
        )
    });
    // reviewd conceded the finding in the thread: the finding was wrong, and the
    // thread's resolution, reviewd's doing, accepts nothing.
    let conceded = thread
        .replies
        .iter()
        .find(|r| is_answer(&r.body) && r.body.contains(CONCEDED));
    let concession = conceded.map(|r| NewFeedback {
        comment_id: target.comment_id,
        verdict: crate::review::feedback::REJECTED,
        source: FeedbackSource::Reply,
        source_id: r.id.clone(),
        username: Some(r.username.clone()),
        note: Some(crate::review::feedback::CONCESSION_NOTE.into()),
    });
    let replies = thread
        .replies
        .iter()
        // A reply carrying a marker is reviewd's own (or a quote of it).
        .filter(|r| comment_fingerprint(&r.body).is_none() && !is_answer(&r.body))
        .filter_map(|r| {
            record(
                Signal::Reply(&r.body),
                FeedbackSource::Reply,
                &r.id,
                Some(&r.username),
                Some(&r.body),
            )
        });
    let resolution = thread
        .resolved
        .iter()
        .filter(|_| conceded.is_none())
        .filter_map(|r| {
            record(
                Signal::Resolved,
                FeedbackSource::Resolved,
                "",
                r.username.as_deref(),
                None,
            )
        });
    reactions
        .chain(replies)
        .chain(resolution)
        .chain(concession)
        .collect()
}

/// Whether the diffs change the commented line, on the file as it was commented
/// (its old path when the diff renames it).
fn line_changed(target: &FeedbackTarget, files: &[FileDiff]) -> bool {
    let Ok(line) = u32::try_from(target.line_number) else {
        return false;
    };
    files
        .iter()
        .filter(|f| f.old_path.as_deref().unwrap_or(&f.new_path) == target.file_path)
        .filter_map(|f| f.diff.as_deref())
        .any(|diff| changed_old_lines(diff).contains(&line))
}
