//! Diesel row types, each beside its conversion into the domain type it carries, so
//! no diesel derive reaches `reviewd-domain`.
//!
//! A row here is `Queryable + Selectable` and is loaded with `Row::as_select()` (or
//! returned with `Row::as_returning()`), never as a positional tuple. Rows of
//! hand-written SQL (`QueryableByName`) stay beside their statement in `repos/`.

mod account;
mod ai_config;
mod catalog;
mod conversation;
mod health;
mod monitoring;
mod notification;
mod platform;
mod project;
mod review;
mod review_views;
mod runner;
mod secret;
mod settings;
mod task;

pub(crate) use account::{ApiKeyRow, SessionRow, UserRow};
pub(crate) use ai_config::AiConfigRow;
pub(crate) use catalog::{ActiveRuleRow, RuleRow, TemplateRow};
pub(crate) use conversation::{ControlsRow, ConversationRow, LearningRow};
pub(crate) use health::HealthCheckRow;
pub(crate) use monitoring::{DatabaseRow, SystemRow, to_u32};
pub(crate) use notification::{
    ConfigRow, HistoryRow, SubscriptionRow, channel, delivery_status, notification_type,
    review_event,
};
pub(crate) use platform::PlatformConfigRow;
pub(crate) use project::{
    PipelineRow, ProjectCountsRow, ProjectRow, ReviewCountsRow, ReviewSummaryRow,
};
pub(crate) use review::{FileRefRow, ReviewRow};
pub(crate) use review_views::{
    AiLogRow, CommentRow, DayCostRow, DayRow, DetailRow, FailedReviewRow, FeedbackRow, FileRow,
    ListRow, RoundRow, StatsRow, TaskLogRow,
};
pub(crate) use runner::RunnerRow;
pub(crate) use secret::seal;
pub(crate) use settings::GlobalSettingsRow;
pub(crate) use task::TaskRow;

/// Converts a row count from the database (never negative) to the domain's `u64`.
pub(crate) fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}
