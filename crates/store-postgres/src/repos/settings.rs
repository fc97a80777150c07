//! The deployment's review settings and the AI config lookups.

use super::conn;
use crate::PgPool;
use crate::cache::{ConfigCache, Slot};
use crate::error::map_diesel_error;
use crate::rows::GlobalSettingsRow;
use crate::schema::{ai_configs, global_settings};
use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use reviewd_domain::model::GlobalSettings;
use reviewd_domain::ports::{RepoError, SettingsRepository};
use uuid::Uuid;

pub struct PgSettingsRepository {
    pool: PgPool,
    cache: ConfigCache,
    /// The one row of global settings, which every webhook reads.
    global: Slot<(), GlobalSettings>,
}

impl PgSettingsRepository {
    #[must_use]
    pub fn new(pool: PgPool) -> Self {
        Self {
            pool,
            cache: ConfigCache::default(),
            global: Slot::default(),
        }
    }

    /// Serves `global` from `cache` while it says nothing changed.
    #[must_use]
    pub fn with_cache(mut self, cache: ConfigCache) -> Self {
        self.cache = cache;
        self
    }
}

#[async_trait]
impl SettingsRepository for PgSettingsRepository {
    async fn global(&self) -> Result<GlobalSettings, RepoError> {
        if let Some(settings) = self.global.get(&self.cache, &()) {
            return Ok(settings);
        }
        let ticket = self.cache.ticket();
        let mut conn = conn(&self.pool).await?;
        let row: GlobalSettingsRow = global_settings::table
            .select(GlobalSettingsRow::as_select())
            .first(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let settings = GlobalSettings::from(row);
        self.global.put(ticket, (), &settings);
        Ok(settings)
    }

    async fn ai_config_exists(&self, id: Uuid) -> Result<bool, RepoError> {
        let mut conn = conn(&self.pool).await?;
        diesel::select(diesel::dsl::exists(ai_configs::table.find(id)))
            .get_result(&mut conn)
            .await
            .map_err(map_diesel_error)
    }

    async fn default_ai_config_id(&self) -> Result<Option<Uuid>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        ai_configs::table
            .filter(ai_configs::is_default.eq(true))
            .select(ai_configs::id)
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)
    }
}
