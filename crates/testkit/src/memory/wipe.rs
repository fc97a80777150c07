//! The reset: every table back to a fresh store's, the caller's account and the
//! credential they came with kept.

use super::MemoryStore;
use super::Tables;
use async_trait::async_trait;
use reviewd_domain::ports::{DataWipe, RepoError, ResetCaller};

/// The tables of the PostgreSQL schema this store stands for: `PgDataWipe` counts
/// each one it empties, rows or not.
const SCHEMA_TABLES: u64 = 31;

#[async_trait]
impl DataWipe for MemoryStore {
    fn store(&self) -> &'static str {
        "database"
    }

    async fn wipe(&self, caller: &ResetCaller) -> Result<u64, RepoError> {
        let mut tables = self.tables();
        let auth = std::mem::take(&mut tables.auth).kept_for(caller);
        // A fresh store's defaults are what the migrations seed (global settings,
        // the notification config).
        *tables = Tables {
            auth,
            ..Tables::default()
        };
        Ok(SCHEMA_TABLES)
    }
}
