//! The values the database admits for the read models text fields, as schemas.

use crate::field_schemas::string_enum;
use reviewd_domain::model::PlatformType;
use reviewd_domain::model::{TaskStatus, TriggeredBy};
use serde_json::Value;
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
pub(super) const FILE_STATUSES: [&str; 5] =
    ["pending", "processing", "completed", "failed", "skipped"];
/// How a file changed in the merge request.
pub(super) const CHANGE_TYPES: [&str; 4] = ["new", "modified", "deleted", "renamed"];
/// A completed review's rating letter.
pub(super) const RATINGS: [&str; 5] = ["A", "B", "C", "D", "F"];
pub(super) const FEEDBACK_TYPES: [&str; 2] = ["positive", "negative"];
pub(super) const TRACKING_STATUSES: [&str; 4] = ["pending", "accepted", "rejected", "implemented"];
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
pub(super) fn nullable_enum(values: &[&'static str], description: &str) -> Object {
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

pub(super) fn task_status_schema() -> Object {
    string_enum(TaskStatus::ALL.map(TaskStatus::as_str))
}

pub(super) fn triggered_by_schema() -> Object {
    string_enum(TriggeredBy::ALL.map(TriggeredBy::as_str))
}

pub(super) fn platform_type_schema() -> Object {
    string_enum(PlatformType::ALL.map(PlatformType::as_str))
}

pub(super) fn file_status_schema() -> Object {
    string_enum(FILE_STATUSES)
}

pub(super) fn piece_kind_schema() -> Object {
    string_enum(reviewd_domain::context::PieceKind::ALL.map(|k| k.as_str()))
}

pub(super) fn change_type_schema() -> Object {
    string_enum(CHANGE_TYPES)
}

pub(super) fn rating_schema() -> Object {
    nullable_enum(
        &RATINGS,
        "The rating letter of a completed review, best first; `null` until then.",
    )
}

pub(super) fn feedback_type_schema() -> Object {
    string_enum(FEEDBACK_TYPES)
}

pub(super) fn tracking_status_schema() -> Object {
    string_enum(TRACKING_STATUSES)
}

/// Where clients poll a task.
pub(super) fn task_location(id: Uuid) -> String {
    format!("/api/reviews/manual/tasks/{id}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use reviewd_domain::model::diff::ChangeType;
    use reviewd_domain::model::grade::{Rating, Severity};
    use reviewd_domain::model::review::{AiCallStatus, FileStatus, ReviewStatus};
    use reviewd_domain::review::feedback::{FeedbackType, TrackingStatus};

    fn names<T: Copy>(all: &[T], name: impl Fn(T) -> &'static str) -> Vec<&'static str> {
        all.iter().copied().map(name).collect()
    }

    /// The document's lists are the domain's values: a value added to an enum and
    /// not to the schema (or the other way round) fails here, not in a client.
    #[test]
    fn each_list_is_its_enums_values() {
        assert_eq!(
            REVIEW_STATUSES.to_vec(),
            names(&ReviewStatus::ALL, ReviewStatus::as_str)
        );
        assert_eq!(SEVERITIES.to_vec(), names(&Severity::ALL, Severity::as_str));
        assert_eq!(
            AI_CALL_STATUSES.to_vec(),
            names(AiCallStatus::ALL, AiCallStatus::as_str)
        );
        assert_eq!(
            FILE_STATUSES.to_vec(),
            names(FileStatus::ALL, FileStatus::as_str)
        );
        assert_eq!(
            CHANGE_TYPES.to_vec(),
            names(&ChangeType::ALL, ChangeType::as_str)
        );
        assert_eq!(RATINGS.to_vec(), names(&Rating::ALL, Rating::as_str));
        assert_eq!(
            FEEDBACK_TYPES.to_vec(),
            names(FeedbackType::ALL, FeedbackType::as_str)
        );
        assert_eq!(
            TRACKING_STATUSES.to_vec(),
            names(TrackingStatus::ALL, TrackingStatus::as_str)
        );
    }
}
