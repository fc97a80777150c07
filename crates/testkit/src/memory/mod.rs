//! `MemoryStore`: one in-memory implementation of every repository port, keeping
//! the invariants the PostgreSQL adapters keep (unique keys, atomic claims, leases
//! that expire on the store's clock). Each port's impl is in its own module; all of
//! them work on [`Tables`] under one lock, so a call is as atomic as the
//! transaction it stands for, and reads that join tables see one state.

mod ai_configs;
mod analysis;
mod auth;
mod catalog;
mod conversations;
mod feedback;
mod learnings;
mod monitoring;
mod notifications;
mod platform_configs;
mod projects;
mod review_queries;
mod reviews;
mod runners;
mod settings;
mod tables;
mod tasks;
mod wipe;

use crate::fakes::FakeClock;
use chrono::{DateTime, Utc};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::review_views::TaskLogLine;
use reviewd_domain::model::{AiConfig, PlatformConfig, Project};
use reviewd_domain::ports::Clock;
use std::sync::{Arc, Mutex, MutexGuard};
use tables::{
    AiCallRow, CommentRow, FeedbackRow, FileRow, ReviewRow, RoundRow, RunnerRow, TaskRow,
};
use uuid::Uuid;

/// Every repository port in memory. Cheap to clone: clones share the tables.
#[derive(Clone)]
pub struct MemoryStore {
    tables: Arc<Mutex<Tables>>,
    clock: Arc<dyn Clock>,
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::new(Arc::new(FakeClock::default()))
    }
}

impl MemoryStore {
    /// A store whose timestamps, leases and ages are read from `clock`.
    #[must_use]
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self {
            tables: Arc::new(Mutex::new(Tables::default())),
            clock,
        }
    }

    fn tables(&self) -> MutexGuard<'_, Tables> {
        // A test that panicked while holding the lock has failed already.
        self.tables
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }
}

/// Every table, behind the store's one lock, so that a port's call is atomic as a
/// transaction is.
#[derive(Debug, Default)]
pub(crate) struct Tables {
    pub platform_configs: Vec<PlatformConfig>,
    pub ai_configs: Vec<AiConfig>,
    pub projects: Vec<Project>,
    pub tasks: Vec<TaskRow>,
    pub task_logs: Vec<TaskLogLine>,
    pub runners: Vec<RunnerRow>,
    pub reviews: Vec<ReviewRow>,
    pub rounds: Vec<RoundRow>,
    pub files: Vec<FileRow>,
    pub comments: Vec<CommentRow>,
    pub feedbacks: Vec<FeedbackRow>,
    pub ai_calls: Vec<AiCallRow>,
    /// `projects.budget_alerted_month`: the month whose spent budget was announced.
    pub budget_alerts: std::collections::HashMap<ProjectId, chrono::NaiveDate>,
    /// `budget_notes`: (project, MR, month) told of a spent budget.
    pub budget_notes: std::collections::HashSet<(ProjectId, i64, chrono::NaiveDate)>,
    pub catalog: catalog::CatalogTables,
    pub settings: settings::SettingsTables,
    pub notifications: notifications::NotificationTables,
    pub monitoring: monitoring::MonitoringTables,
    pub auth: auth::AuthTables,
    /// Rounds prepared ahead of claims, by task: the `prepared` key of
    /// `review_tasks.assignment` (the round itself is the row's `assignment`).
    pub preparations: std::collections::HashMap<Uuid, reviewd_domain::ports::Preparation>,
    /// MRs a preparer holds (PostgreSQL's session advisory locks).
    pub preparing: std::collections::HashSet<(ProjectId, i64)>,
    /// Conversations, merge requests' controls, learnings.
    pub talk: conversations::ConversationTables,
    /// `analysis_uploads`: each upload with its findings, oldest first.
    pub uploads: Vec<(
        reviewd_domain::ports::Upload,
        Vec<reviewd_domain::review::tools::ToolFinding>,
    )>,
}
