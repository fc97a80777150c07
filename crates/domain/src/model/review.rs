//! Reviews of merge requests: rounds, the files of each round, the comments placed
//! on them, and the AI calls made.

use super::diff::ChangeType;
use super::diff::Suggestion;
use super::ids::ProjectId;
use super::ids::{ReviewFileId, ReviewId};
use super::named_values::text_enum;
use super::task::TriggeredBy;
use crate::model::grade::{Rating, Severity};
use uuid::Uuid;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewStatus {
    Pending,
    Completed,
    Failed,
}

impl ReviewStatus {
    pub const ALL: [Self; 3] = [
        ReviewStatus::Pending,
        ReviewStatus::Completed,
        ReviewStatus::Failed,
    ];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewStatus::Pending => "pending",
            ReviewStatus::Completed => "completed",
            ReviewStatus::Failed => "failed",
        }
    }
}

super::named_values::named_values!(ReviewStatus, "review status");

/// The review of one MR: it lives across rounds (one per reviewed head).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Review {
    pub id: ReviewId,
    pub project_id: ProjectId,
    pub mr_iid: i64,
    pub status: ReviewStatus,
    pub head_commit_sha: String,
    pub round_number: i32,
    pub summary_comment_id: Option<String>,
    pub comment_count: i32,
    /// The last completed round's grade and score (what the merge gate weighs).
    pub grade: Option<(Rating, u32)>,
    /// Why the review failed, when it did.
    pub error_message: Option<String>,
}

#[derive(Debug, Clone)]
pub struct NewReview {
    pub project_id: ProjectId,
    pub project_name: String,
    pub mr_iid: i64,
    pub mr_title: String,
    pub mr_url: String,
    pub source_branch: String,
    pub target_branch: String,
    pub author_username: Option<String>,
    pub ai_provider: String,
    pub ai_model: String,
    pub triggered_by: TriggeredBy,
    pub base_commit_sha: Option<String>,
    pub head_commit_sha: String,
    pub start_commit_sha: Option<String>,
}

/// What a finished round leaves on the review record.
#[derive(Debug, Clone)]
pub struct ReviewOutcome {
    pub status: ReviewStatus,
    pub rating: Option<Rating>,
    pub score: Option<u32>,
    pub summary: Option<String>,
    pub comment_count: i32,
    pub reviewed_lines: i32,
    pub summary_comment_id: Option<String>,
    pub error_message: Option<String>,
    pub applied_rule_ids: Vec<String>,
}

impl ReviewOutcome {
    /// A round that failed: the review keeps what earlier rounds posted (its comment
    /// count and summary note) and says why.
    #[must_use]
    pub fn failed(review: &Review, message: &str) -> Self {
        Self {
            status: ReviewStatus::Failed,
            rating: None,
            score: None,
            summary: None,
            comment_count: review.comment_count,
            reviewed_lines: 0,
            summary_comment_id: review.summary_comment_id.clone(),
            error_message: Some(message.to_owned()),
            applied_rule_ids: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundRef {
    pub id: Uuid,
    pub number: i32,
}

text_enum!(
    /// Where a file of a round is: waiting, with the model, or done one way or another.
    FileStatus {
        Pending => "pending",
        Processing => "processing",
        Completed => "completed",
        Failed => "failed",
        Skipped => "skipped",
    }
);

impl FileStatus {
    /// Whether the file's review is over (its completion time is set).
    #[must_use]
    pub fn finished(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Skipped)
    }
}

text_enum!(
    /// How an AI call ended, as the AI call log shows it.
    AiCallStatus {
        Success => "success",
        Failed => "failed",
    }
);

/// A file of a round as it is being (or has been) reviewed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileProgress {
    pub status: FileStatus,
    pub summary: Option<String>,
    pub comment_count: i32,
    pub prompt_summary: Option<String>,
    pub error_message: Option<String>,
    /// What the file's review was given besides its diff (kept as it was when
    /// `None`: a progress update before the model is asked).
    pub context: Option<crate::context::ContextReport>,
}

/// A comment placed on a diff line, ready to store and post.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacedComment {
    pub file_id: ReviewFileId,
    pub file_path: String,
    pub old_path: Option<String>,
    pub line: u32,
    pub severity: Severity,
    pub message: String,
    pub fingerprint: String,
    /// Replacement code for lines of the diff, posted as the platform's suggestion
    /// (only one that fits the diff gets here).
    pub suggestion: Option<Suggestion>,
}

/// One AI call, successful or not, for the AI call log.
#[derive(Debug, Clone)]
pub struct AiCallRecord {
    pub review_id: Option<ReviewId>,
    pub file_path: Option<String>,
    pub provider: String,
    pub model: String,
    pub success: bool,
    pub duration_ms: u64,
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
    pub total_tokens: u32,
    /// Prompt tokens the provider served from its cache.
    pub cached_tokens: u32,
    /// USD, from the configuration's prices at the time of the call; `None` when it
    /// has none (or, for a runner, the split of its tokens is unknown).
    pub cost_usd: Option<f64>,
    pub error_message: Option<String>,
}

/// A file handed to the engine.
#[derive(Debug, Clone)]
pub struct NewReviewFile {
    pub file_path: String,
    pub old_path: Option<String>,
    pub change_type: ChangeType,
    pub status: FileStatus,
}
