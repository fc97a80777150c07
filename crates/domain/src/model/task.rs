//! Review tasks: the Postgres record of each unit of queued review work.

use super::ids::ProjectId;
use super::ids::ReviewId;
use chrono::{DateTime, Utc};
use std::str::FromStr;
use uuid::Uuid;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TriggeredBy {
    Auto,
    Manual,
}

impl TriggeredBy {
    pub const ALL: [Self; 2] = [TriggeredBy::Auto, TriggeredBy::Manual];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            TriggeredBy::Auto => "auto",
            TriggeredBy::Manual => "manual",
        }
    }
}

super::named_values::named_values!(TriggeredBy, "trigger");

/// Where a task is in its life. `queued` → `processing` → `completed`/`failed`;
/// a queued task whose MR got a newer head becomes `superseded`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskStatus {
    Queued,
    Processing,
    Completed,
    Failed,
    Superseded,
    Cancelled,
}

impl TaskStatus {
    pub const ALL: [Self; 6] = [
        TaskStatus::Queued,
        TaskStatus::Processing,
        TaskStatus::Completed,
        TaskStatus::Failed,
        TaskStatus::Superseded,
        TaskStatus::Cancelled,
    ];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Queued => "queued",
            TaskStatus::Processing => "processing",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Superseded => "superseded",
            TaskStatus::Cancelled => "cancelled",
        }
    }
}

// Its FromStr also takes the filter's other names (`pending`, `in_progress`).
impl std::fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TaskStatus {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "queued" | "pending" => Ok(TaskStatus::Queued),
            "processing" | "in_progress" => Ok(TaskStatus::Processing),
            "completed" => Ok(TaskStatus::Completed),
            "failed" => Ok(TaskStatus::Failed),
            "superseded" => Ok(TaskStatus::Superseded),
            "cancelled" => Ok(TaskStatus::Cancelled),
            other => Err(format!("unknown task status `{other}`")),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewTask {
    pub id: Uuid,
    pub triggered_by: TriggeredBy,
    pub project_id: ProjectId,
    pub review_id: Option<ReviewId>,
    pub mr_iid: i64,
    pub head_sha: Option<String>,
    pub status: TaskStatus,
    pub send_to_platform: bool,
    pub template_id: Option<Uuid>,
    pub requested_by: Option<Uuid>,
    pub attempts: i32,
    pub max_attempts: i32,
    /// The server worker holding the task while `processing` (its stable name).
    pub worker_id: Option<String>,
    /// The conversation this task answers (a command or a question); `None` for a review.
    pub conversation_id: Option<Uuid>,
    /// `review full`: every file is reviewed again, not only those changed since
    /// the last completed round.
    pub full_review: bool,
    pub error_message: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub completed_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone)]
pub struct NewReviewTask {
    pub triggered_by: TriggeredBy,
    pub project_id: ProjectId,
    pub mr_iid: i64,
    pub head_sha: Option<String>,
    pub send_to_platform: bool,
    pub template_id: Option<Uuid>,
    pub requested_by: Option<Uuid>,
    pub max_attempts: i32,
    /// The conversation to answer; `None` for a review.
    pub conversation_id: Option<Uuid>,
    /// Review every file again (`review full`).
    pub full_review: bool,
}

impl NewReviewTask {
    /// At most one active task per MR head: a redelivered or repeated event for the
    /// same head finds the existing task instead of queueing a second one.
    #[must_use]
    pub fn dedup_key(&self) -> Option<String> {
        // A conversation is answered by one task at a time, whatever the MR's head.
        if let Some(id) = self.conversation_id {
            return Some(format!("conversation:{id}"));
        }
        self.head_sha
            .as_ref()
            .map(|sha| format!("{}:{}:{sha}", self.project_id, self.mr_iid))
    }
}
