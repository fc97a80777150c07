//! `MemoryStore`: one in-memory implementation of every repository port, keeping
//! the invariants the PostgreSQL adapters keep (unique keys, atomic claims, leases
//! that expire on the store's clock). Each port's impl is in its own module; all of
//! them work on [`tables::Tables`] under one lock, so a call is as atomic as the
//! transaction it stands for, and reads that join tables see one state.

mod ai_configs;
mod auth;
mod catalog;
mod feedback;
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
use reviewd_domain::ports::Clock;
use std::sync::{Arc, Mutex, MutexGuard};
use tables::Tables;

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
