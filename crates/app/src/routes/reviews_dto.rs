//! The response shapes of `/api/reviews` (and of the templates and rules of
//! `catalog`): mirrors of the domain's review read models and task records, and the
//! envelopes their lists come in.

use super::dto::MergeRequestDto;
use crate::envelope::{Items, PageMeta};
use crate::openapi::string_enum;
use chrono::{DateTime, Utc};
use reviewd_domain::model::review_views::{
    AiLogItem, CommentItem, FeedbackItem, FileItem, ReviewDetail, ReviewListItem, ReviewStats,
    RoundItem, RuleItem, TaskLogLine, TemplateItem,
};
use reviewd_domain::model::{PlatformType, Project, ReviewTask, TaskStatus, TriggeredBy};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use utoipa::openapi::Object;
use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
use uuid::Uuid;

// The values the database admits for the read models' text columns (its CHECK
// constraints), which the query filters take as they are.

/// A review's state (`status` of the history list and its filter).
pub(super) const REVIEW_STATUSES: [&str; 3] = ["pending", "completed", "failed"];
/// A comment's severity (and the comments' filter).
pub(super) const SEVERITIES: [&str; 3] = ["info", "warning", "error"];
/// The outcome of an AI call (and the AI log's filter).
pub(super) const AI_CALL_STATUSES: [&str; 2] = ["success", "failed"];
/// The states a reviewed file goes through.
const FILE_STATUSES: [&str; 5] = ["pending", "processing", "completed", "failed", "skipped"];
/// How a file changed in the merge request.
const CHANGE_TYPES: [&str; 4] = ["new", "modified", "deleted", "renamed"];
/// A completed review's rating letter.
const RATINGS: [&str; 5] = ["A", "B", "C", "D", "F"];
const FEEDBACK_TYPES: [&str; 2] = ["positive", "negative"];
const TRACKING_STATUSES: [&str; 4] = ["pending", "accepted", "rejected", "implemented"];
/// What the task filter takes: each task status, and `pending`/`in_progress` as
/// other names of `queued`/`processing`.
pub(super) const TASK_STATUS_FILTERS: [&str; 8] = [
    "queued",
    "pending",
    "processing",
    "in_progress",
    "completed",
    "failed",
    "superseded",
    "cancelled",
];

/// `values`, or `null`.
fn nullable_enum(values: &[&'static str], description: &str) -> Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .enum_values(Some(
            values.iter().map(|v| Value::from(*v)).chain([Value::Null]),
        ))
        .description(Some(description))
        .build()
}

pub(super) fn review_status_schema() -> Object {
    string_enum(REVIEW_STATUSES)
}

pub(super) fn severity_schema() -> Object {
    string_enum(SEVERITIES)
}

pub(super) fn ai_call_status_schema() -> Object {
    string_enum(AI_CALL_STATUSES)
}

pub(super) fn task_status_filter_schema() -> Object {
    string_enum(TASK_STATUS_FILTERS)
}

pub(super) fn mr_state_schema() -> Object {
    string_enum(reviewd_domain::model::MrState::ALL.map(reviewd_domain::model::MrState::as_str))
}

fn task_status_schema() -> Object {
    string_enum(TaskStatus::ALL.map(TaskStatus::as_str))
}

fn triggered_by_schema() -> Object {
    string_enum(TriggeredBy::ALL.map(TriggeredBy::as_str))
}

fn platform_type_schema() -> Object {
    string_enum(PlatformType::ALL.map(PlatformType::as_str))
}

fn file_status_schema() -> Object {
    string_enum(FILE_STATUSES)
}

fn change_type_schema() -> Object {
    string_enum(CHANGE_TYPES)
}

fn rating_schema() -> Object {
    nullable_enum(
        &RATINGS,
        "The rating letter of a completed review, best first; `null` until then.",
    )
}

fn feedback_type_schema() -> Object {
    string_enum(FEEDBACK_TYPES)
}

fn tracking_status_schema() -> Object {
    string_enum(TRACKING_STATUSES)
}

/// Where clients poll a task.
pub(super) fn task_location(id: Uuid) -> String {
    format!("/api/reviews/manual/tasks/{id}")
}

// ---------------------------------------------------------------------------
// Tasks

/// A review task: one unit of queued review work and where it stands.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewTaskDto {
    id: Uuid,
    #[schema(schema_with = task_status_schema)]
    status: &'static str,
    /// The review it produced, once it has started one.
    review_id: Option<Uuid>,
    project_id: Uuid,
    mr_iid: i64,
    head_sha: Option<String>,
    #[schema(schema_with = triggered_by_schema)]
    triggered_by: &'static str,
    send_to_platform: bool,
    attempts: i32,
    max_attempts: i32,
    error_message: Option<String>,
    /// Where to poll this task (`GET`).
    location: String,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    started_at: Option<DateTime<Utc>>,
    completed_at: Option<DateTime<Utc>>,
}

impl From<ReviewTask> for ReviewTaskDto {
    fn from(t: ReviewTask) -> Self {
        ReviewTaskDto {
            location: task_location(t.id),
            id: t.id,
            status: t.status.as_str(),
            review_id: t.review_id,
            project_id: t.project_id,
            mr_iid: t.mr_iid,
            head_sha: t.head_sha,
            triggered_by: t.triggered_by.as_str(),
            send_to_platform: t.send_to_platform,
            attempts: t.attempts,
            max_attempts: t.max_attempts,
            error_message: t.error_message,
            created_at: t.created_at,
            updated_at: t.updated_at,
            started_at: t.started_at,
            completed_at: t.completed_at,
        }
    }
}

/// `{"task": ...}`.
#[derive(Serialize, ToSchema)]
pub(super) struct OneReviewTask {
    pub task: ReviewTaskDto,
}

fn trigger_status_schema() -> Object {
    string_enum(["queued", "failed"])
}

/// The task a manual trigger queued (or found active for the same MR head).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct TriggeredTask {
    pub id: Uuid,
    /// `queued`, or `failed` when the queue could not take it (the task is recorded).
    #[schema(schema_with = trigger_status_schema)]
    pub status: &'static str,
    pub sent_to_platform: bool,
    /// Where to poll the task (`GET`); also the answer's `Location`.
    pub location: String,
    pub error_message: Option<String>,
}

/// The answer of a manual trigger.
#[derive(Serialize, ToSchema)]
pub(super) struct TriggeredReview {
    /// Whether the task is in the queue.
    pub queued: bool,
    pub task: TriggeredTask,
}

// ---------------------------------------------------------------------------
// The review list and a review

/// A review as the history lists it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewListItemDto {
    id: Uuid,
    project_id: Uuid,
    project_name: String,
    mr_iid: i64,
    mr_title: String,
    mr_url: String,
    #[schema(schema_with = review_status_schema)]
    status: String,
    ai_provider: String,
    ai_model: String,
    comment_count: i32,
    #[schema(schema_with = triggered_by_schema)]
    triggered_by: String,
    #[schema(schema_with = rating_schema)]
    overall_rating: Option<String>,
    summary: Option<String>,
    created_at: DateTime<Utc>,
    completed_at: Option<DateTime<Utc>>,
}

impl From<ReviewListItem> for ReviewListItemDto {
    fn from(r: ReviewListItem) -> Self {
        ReviewListItemDto {
            id: r.id,
            project_id: r.project_id,
            project_name: r.project_name,
            mr_iid: r.mr_iid,
            mr_title: r.mr_title,
            mr_url: r.mr_url,
            status: r.status,
            ai_provider: r.ai_provider,
            ai_model: r.ai_model,
            comment_count: r.comment_count,
            triggered_by: r.triggered_by,
            overall_rating: r.overall_rating,
            summary: r.summary,
            created_at: r.created_at,
            completed_at: r.completed_at,
        }
    }
}

/// Aggregates of the whole filtered set (not only the page).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewStatsDto {
    total: u64,
    pending: u64,
    completed: u64,
    failed: u64,
    total_comments: u64,
    /// The mean score of the scored reviews; `null` when none is.
    average_score: Option<f64>,
}

impl From<ReviewStats> for ReviewStatsDto {
    fn from(s: ReviewStats) -> Self {
        ReviewStatsDto {
            total: s.total,
            pending: s.pending,
            completed: s.completed,
            failed: s.failed,
            total_comments: s.total_comments,
            average_score: s.average_score,
        }
    }
}

/// `data` of the review list: a page of reviews and the set's aggregates.
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewPageData {
    pub items: Vec<ReviewListItemDto>,
    pub stats: ReviewStatsDto,
}

/// `{"data": {"items": [...], "stats": {...}}, "meta": {"pagination": {...}}}`.
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewPage {
    pub data: ReviewPageData,
    pub meta: PageMeta,
}

/// A review with everything recorded on it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewDetailDto {
    #[serde(flatten)]
    item: ReviewListItemDto,
    base_commit_sha: Option<String>,
    head_commit_sha: String,
    start_commit_sha: Option<String>,
    #[schema(minimum = 1)]
    round_number: i32,
    /// The review rules applied in its last round.
    applied_rule_ids: Vec<String>,
    reviewed_lines: i32,
    #[schema(minimum = 0, maximum = 100)]
    score: Option<i32>,
    source_branch: String,
    target_branch: String,
    author_username: Option<String>,
    error_message: Option<String>,
    started_at: Option<DateTime<Utc>>,
}

impl From<ReviewDetail> for ReviewDetailDto {
    fn from(d: ReviewDetail) -> Self {
        ReviewDetailDto {
            item: d.item.into(),
            base_commit_sha: d.base_commit_sha,
            head_commit_sha: d.head_commit_sha,
            start_commit_sha: d.start_commit_sha,
            round_number: d.round_number,
            applied_rule_ids: d.applied_rule_ids,
            reviewed_lines: d.reviewed_lines,
            score: d.score,
            source_branch: d.source_branch,
            target_branch: d.target_branch,
            author_username: d.author_username,
            error_message: d.error_message,
            started_at: d.started_at,
        }
    }
}

/// `{"review": ...}`.
#[derive(Serialize, ToSchema)]
pub(super) struct OneReview {
    pub review: ReviewDetailDto,
}

// ---------------------------------------------------------------------------
// What is recorded about a review

/// A comment placed on a diff line.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewCommentDto {
    id: Uuid,
    review_id: Uuid,
    file_path: String,
    line_number: i32,
    #[schema(schema_with = severity_schema)]
    severity: String,
    message: String,
    /// The discussion it opened on hostA, once posted there.
    #[serde(rename = "hostADiscussionId")]
    host_a_discussion_id: Option<String>,
    round_number: i32,
    posted_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
}

impl From<CommentItem> for ReviewCommentDto {
    fn from(c: CommentItem) -> Self {
        ReviewCommentDto {
            id: c.id,
            review_id: c.review_id,
            file_path: c.file_path,
            line_number: c.line_number,
            severity: c.severity,
            message: c.message,
            host_a_discussion_id: c.host_a_discussion_id,
            round_number: c.round_number,
            posted_at: c.posted_at,
            created_at: c.created_at,
        }
    }
}

/// A file of the review, as it is being (or has been) reviewed.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewFileDto {
    id: Uuid,
    file_path: String,
    old_path: Option<String>,
    #[schema(schema_with = change_type_schema)]
    change_type: String,
    summary: Option<String>,
    comment_count: i32,
    #[schema(schema_with = file_status_schema)]
    status: String,
    prompt_summary: Option<String>,
    error_message: Option<String>,
    attempts: i32,
    round_number: i32,
    started_at: Option<DateTime<Utc>>,
    completed_at: Option<DateTime<Utc>>,
}

impl From<FileItem> for ReviewFileDto {
    fn from(f: FileItem) -> Self {
        ReviewFileDto {
            id: f.id,
            file_path: f.file_path,
            old_path: f.old_path,
            change_type: f.change_type,
            summary: f.summary,
            comment_count: f.comment_count,
            status: f.status,
            prompt_summary: f.prompt_summary,
            error_message: f.error_message,
            attempts: f.attempts,
            round_number: f.round_number,
            started_at: f.started_at,
            completed_at: f.completed_at,
        }
    }
}

/// `{"files": [...]}`.
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewFiles {
    pub files: Vec<ReviewFileDto>,
}

/// Where one file's review stands.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewFileProgressDto {
    file_id: Uuid,
    file_path: String,
    #[schema(schema_with = file_status_schema)]
    status: String,
    prompt_summary: Option<String>,
    comment_count: i32,
    attempts: i32,
    error_message: Option<String>,
    started_at: Option<DateTime<Utc>>,
    completed_at: Option<DateTime<Utc>>,
}

impl From<&FileItem> for ReviewFileProgressDto {
    fn from(f: &FileItem) -> Self {
        ReviewFileProgressDto {
            file_id: f.id,
            file_path: f.file_path.clone(),
            status: f.status.clone(),
            prompt_summary: f.prompt_summary.clone(),
            comment_count: f.comment_count,
            attempts: f.attempts,
            error_message: f.error_message.clone(),
            started_at: f.started_at,
            completed_at: f.completed_at,
        }
    }
}

/// Each file's progress, and how many of them are done (completed, failed or skipped).
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewFileProgressReport {
    pub files: Vec<ReviewFileProgressDto>,
    pub completed: usize,
    pub total: usize,
}

/// The answer of a file's retry: the file's new state.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct RetriedReviewFile {
    pub success: bool,
    /// Comments the new pass added (those already made are not repeated).
    pub new_comments: usize,
    /// The file after the retry; `null` if it is no longer listed.
    pub file: Option<ReviewFileDto>,
}

/// A round: one reviewed head of the merge request.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewRoundDto {
    id: Uuid,
    #[schema(minimum = 1)]
    round_number: i32,
    /// Whether only what changed since the previous round was reviewed.
    is_differential: bool,
    base_sha: Option<String>,
    head_sha: String,
    file_count: i32,
    comment_count: i32,
    created_at: DateTime<Utc>,
    completed_at: Option<DateTime<Utc>>,
}

impl From<RoundItem> for ReviewRoundDto {
    fn from(r: RoundItem) -> Self {
        ReviewRoundDto {
            id: r.id,
            round_number: r.round_number,
            is_differential: r.is_differential,
            base_sha: r.base_sha,
            head_sha: r.head_sha,
            file_count: r.file_count,
            comment_count: r.comment_count,
            created_at: r.created_at,
            completed_at: r.completed_at,
        }
    }
}

/// `{"rounds": [...]}`.
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewRounds {
    pub rounds: Vec<ReviewRoundDto>,
}

/// Feedback given on the review's comments.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewFeedbackDto {
    id: Uuid,
    #[schema(schema_with = feedback_type_schema)]
    feedback_type: String,
    #[schema(schema_with = tracking_status_schema)]
    tracking_status: String,
    username: Option<String>,
    created_at: DateTime<Utc>,
}

impl From<FeedbackItem> for ReviewFeedbackDto {
    fn from(f: FeedbackItem) -> Self {
        ReviewFeedbackDto {
            id: f.id,
            feedback_type: f.feedback_type,
            tracking_status: f.tracking_status,
            username: f.username,
            created_at: f.created_at,
        }
    }
}

/// `{"feedbacks": [...]}`.
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewFeedbacks {
    pub feedbacks: Vec<ReviewFeedbackDto>,
}

/// One call made to an AI model for the review.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewAiLogDto {
    id: Uuid,
    provider: String,
    model: String,
    #[schema(schema_with = ai_call_status_schema)]
    status: String,
    duration_ms: i64,
    prompt_tokens: i32,
    completion_tokens: i32,
    total_tokens: i32,
    file_path: Option<String>,
    error_message: Option<String>,
    created_at: DateTime<Utc>,
}

impl From<AiLogItem> for ReviewAiLogDto {
    fn from(l: AiLogItem) -> Self {
        ReviewAiLogDto {
            id: l.id,
            provider: l.provider,
            model: l.model,
            status: l.status,
            duration_ms: l.duration_ms,
            prompt_tokens: l.prompt_tokens,
            completion_tokens: l.completion_tokens,
            total_tokens: l.total_tokens,
            file_path: l.file_path,
            error_message: l.error_message,
            created_at: l.created_at,
        }
    }
}

/// A line of the execution log of a task that worked on the review.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewTaskLogLineDto {
    task_id: Uuid,
    line_no: i32,
    message: String,
    created_at: DateTime<Utc>,
}

impl From<TaskLogLine> for ReviewTaskLogLineDto {
    fn from(l: TaskLogLine) -> Self {
        ReviewTaskLogLineDto {
            task_id: l.task_id,
            line_no: l.line_no,
            message: l.message,
            created_at: l.created_at,
        }
    }
}

/// The review's execution log: its state and the log lines of its tasks.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewExecutionLog {
    pub review_id: Uuid,
    #[schema(schema_with = review_status_schema)]
    pub status: String,
    pub error_message: Option<String>,
    pub started_at: Option<DateTime<Utc>>,
    pub completed_at: Option<DateTime<Utc>>,
    pub lines: Vec<ReviewTaskLogLineDto>,
}

/// Where a limit/offset list stands.
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewItemsPagination {
    /// The most items answered (after clamping to the endpoint's maximum).
    pub limit: u32,
    /// How many items were skipped.
    pub offset: u64,
    /// How many items match in all.
    pub total: u64,
}

#[derive(Serialize, ToSchema)]
pub(super) struct ReviewItemsMeta {
    pub pagination: ReviewItemsPagination,
}

/// `{"data": {"items": [T]}, "meta": {"pagination": {"limit", "offset", "total"}}}`: a
/// review's comments or AI calls, by limit and offset.
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewItemsPage<T> {
    pub data: Items<T>,
    pub meta: ReviewItemsMeta,
}

impl<T> ReviewItemsPage<T> {
    pub fn new(items: Vec<T>, limit: u32, offset: u64, total: u64) -> Self {
        ReviewItemsPage {
            data: Items { items },
            meta: ReviewItemsMeta {
                pagination: ReviewItemsPagination {
                    limit,
                    offset,
                    total,
                },
            },
        }
    }
}

// ---------------------------------------------------------------------------
// Manual reviews

/// An enabled project a manual review can be asked for.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ManualReviewProjectDto {
    id: Uuid,
    name: String,
    full_path: String,
    #[schema(schema_with = platform_type_schema)]
    platform_type: &'static str,
    web_url: String,
}

impl From<Project> for ManualReviewProjectDto {
    fn from(p: Project) -> Self {
        ManualReviewProjectDto {
            id: p.id,
            name: p.name,
            full_path: p.full_path,
            platform_type: p.platform_type.as_str(),
            web_url: p.web_url,
        }
    }
}

/// A page of a project's merge requests, read from its platform.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ManualMergeRequests {
    pub items: Vec<MergeRequestDto>,
    /// Whether the platform has a next page.
    pub has_next: bool,
}

// ---------------------------------------------------------------------------
// Templates and rules

/// A review template: the prompt that frames a review (its text is not listed).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewTemplateDto {
    id: Uuid,
    name: String,
    description: Option<String>,
    /// Whether it is the global default (never a project's).
    is_default: bool,
    /// The project it belongs to; `null` for a global template.
    project_id: Option<Uuid>,
}

impl From<TemplateItem> for ReviewTemplateDto {
    fn from(t: TemplateItem) -> Self {
        ReviewTemplateDto {
            id: t.id,
            name: t.name,
            description: t.description,
            is_default: t.is_default,
            project_id: t.project_id,
        }
    }
}

/// `{"templates": [...]}`.
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewTemplates {
    pub templates: Vec<ReviewTemplateDto>,
}

/// `{"template": ...}`.
#[derive(Serialize, ToSchema)]
pub(super) struct OneReviewTemplate {
    pub template: ReviewTemplateDto,
}

/// A review rule: instructions added to the prompt of the files it targets.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReviewRuleDto {
    id: Uuid,
    rule_name: String,
    enabled: bool,
    /// Globs of the file types it targets (`rs`, `*.ts`).
    file_type_patterns: Vec<String>,
    /// Globs of the paths it targets (`src/**`).
    file_path_patterns: Vec<String>,
    /// Higher first.
    priority: i32,
    /// The project it belongs to; `null` for a global rule.
    project_id: Option<Uuid>,
}

impl From<RuleItem> for ReviewRuleDto {
    fn from(r: RuleItem) -> Self {
        ReviewRuleDto {
            id: r.id,
            rule_name: r.rule_name,
            enabled: r.enabled,
            file_type_patterns: r.file_type_patterns,
            file_path_patterns: r.file_path_patterns,
            priority: r.priority,
            project_id: r.project_id,
        }
    }
}

/// `{"rules": [...]}`.
#[derive(Serialize, ToSchema)]
pub(super) struct ReviewRules {
    pub rules: Vec<ReviewRuleDto>,
}

/// `{"rule": ...}`.
#[derive(Serialize, ToSchema)]
pub(super) struct OneReviewRule {
    pub rule: ReviewRuleDto,
}
