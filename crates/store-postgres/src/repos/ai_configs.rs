//! AI configurations, their keys sealed at rest, with at most one default (the
//! partial unique index `ai_configs_single_default_idx`).

use super::ai_fallbacks::{attach, attach_one, replace};
use super::{conn, found};
use crate::PgPool;
use crate::cache::{ConfigCache, Slot};
use crate::error::map_diesel_error;
use crate::rows::{AiConfigRow, seal};
use crate::schema::{ai_configs, projects};
use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use reviewd_crypto::SecretBox;
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::{AiConfig, AiConfigChanges, NewAiConfig, SecretString};
use reviewd_domain::ports::{AiConfigRepository, RepoError};
use uuid::Uuid;

pub struct PgAiConfigRepository {
    pool: PgPool,
    secrets: SecretBox,
    cache: ConfigCache,
    /// `get` by id and `default_config` (`None` key): each queued review's target.
    configs: Slot<Option<Uuid>, Option<AiConfig>>,
}

impl PgAiConfigRepository {
    #[must_use]
    pub fn new(pool: PgPool, secrets: SecretBox) -> Self {
        Self {
            pool,
            secrets,
            cache: ConfigCache::default(),
            configs: Slot::default(),
        }
    }

    /// Serves `get` and `default_config` from `cache` while it says nothing changed.
    #[must_use]
    pub fn with_cache(mut self, cache: ConfigCache) -> Self {
        self.cache = cache;
        self
    }
}

impl PgAiConfigRepository {
    /// The row as a configuration, with its fallbacks.
    async fn with_fallbacks(
        &self,
        conn: &mut diesel_async::AsyncPgConnection,
        row: AiConfigRow,
    ) -> Result<AiConfig, RepoError> {
        let config = row.into_config(&self.secrets)?;
        attach_one(conn, config).await.map_err(map_diesel_error)
    }
}

/// Stored as INTEGER under CHECKs of 1..=64 and 1..=3600, so always in range.
fn int(v: u32) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

#[derive(AsChangeset)]
#[diesel(table_name = ai_configs)]
struct ConfigChangeset {
    name: Option<String>,
    provider: Option<String>,
    endpoint: Option<String>,
    api_key_enc: Option<Option<String>>,
    model: Option<String>,
    max_concurrency: Option<i32>,
    timeout_secs: Option<i32>,
    input_price_per_mtok: Option<Option<f64>>,
    output_price_per_mtok: Option<Option<f64>>,
}

/// Unsets the default so another configuration can take it (partial unique index).
async fn clear_any_default(conn: &mut diesel_async::AsyncPgConnection) -> QueryResult<usize> {
    diesel::update(ai_configs::table.filter(ai_configs::is_default.eq(true)))
        .set(ai_configs::is_default.eq(false))
        .execute(conn)
        .await
}

#[async_trait]
impl AiConfigRepository for PgAiConfigRepository {
    async fn list(&self) -> Result<Vec<AiConfig>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let configs = ai_configs::table
            .select(AiConfigRow::as_select())
            .order((ai_configs::created_at.asc(), ai_configs::id.asc()))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?
            .into_iter()
            .map(|r| r.into_config(&self.secrets))
            .collect::<Result<Vec<_>, _>>()?;
        attach(&mut conn, configs).await.map_err(map_diesel_error)
    }

    async fn get(&self, id: Uuid) -> Result<AiConfig, RepoError> {
        let key = Some(id);
        if let Some(Some(config)) = self.configs.get(&self.cache, &key) {
            return Ok(config);
        }
        let ticket = self.cache.ticket();
        let mut conn = conn(&self.pool).await?;
        let config = ai_configs::table
            .find(id)
            .select(AiConfigRow::as_select())
            .first(&mut conn)
            .await
            .map_err(map_diesel_error)?
            .into_config(&self.secrets)?;
        let config = attach_one(&mut conn, config)
            .await
            .map_err(map_diesel_error)?;
        self.configs.put(ticket, key, &Some(config.clone()));
        Ok(config)
    }

    async fn create(&self, c: NewAiConfig) -> Result<AiConfig, RepoError> {
        self.cache
            .after(async {
                let mut conn = conn(&self.pool).await?;
                let values = (
                    ai_configs::name.eq(c.name),
                    ai_configs::provider.eq(c.provider.as_str()),
                    ai_configs::endpoint.eq(c.endpoint),
                    ai_configs::api_key_enc.eq(seal(&self.secrets, c.api_key.as_ref())),
                    ai_configs::model.eq(c.model),
                    ai_configs::max_concurrency.eq(int(c.max_concurrency)),
                    ai_configs::timeout_secs.eq(int(c.timeout_secs)),
                    ai_configs::input_price_per_mtok.eq(c.input_price_per_mtok),
                    ai_configs::output_price_per_mtok.eq(c.output_price_per_mtok),
                    ai_configs::is_default.eq(c.is_default),
                );
                let (is_default, list) = (c.is_default, c.fallback_ids);
                let row: AiConfigRow = conn
                    .transaction::<_, diesel::result::Error, _>(async move |conn| {
                        if is_default {
                            clear_any_default(conn).await?;
                        }
                        let row: AiConfigRow = diesel::insert_into(ai_configs::table)
                            .values(values)
                            .returning(AiConfigRow::as_returning())
                            .get_result(conn)
                            .await?;
                        replace(conn, row.id, &list).await?;
                        Ok(row)
                    })
                    .await
                    .map_err(map_diesel_error)?;
                self.with_fallbacks(&mut conn, row).await
            })
            .await
    }

    async fn update(&self, id: Uuid, c: AiConfigChanges) -> Result<AiConfig, RepoError> {
        self.cache
            .after(async {
                let mut conn = conn(&self.pool).await?;
                let changeset = ConfigChangeset {
                    name: c.name,
                    provider: c.provider.map(|p| p.as_str().to_owned()),
                    endpoint: c.endpoint,
                    api_key_enc: c
                        .api_key
                        .map(|key: Option<SecretString>| seal(&self.secrets, key.as_ref())),
                    model: c.model,
                    max_concurrency: c.max_concurrency.map(int),
                    timeout_secs: c.timeout_secs.map(int),
                    input_price_per_mtok: c.input_price_per_mtok,
                    output_price_per_mtok: c.output_price_per_mtok,
                };
                let list = c.fallback_ids;
                let row: AiConfigRow = conn
                    .transaction::<_, diesel::result::Error, _>(async move |conn| {
                        // `updated_at` is set here rather than by the row trigger: an
                        // update that changes nothing still stamps it (and diesel
                        // refuses an empty changeset).
                        let row = diesel::update(ai_configs::table.find(id))
                            .set((changeset, ai_configs::updated_at.eq(diesel::dsl::now)))
                            .returning(AiConfigRow::as_returning())
                            .get_result(conn)
                            .await?;
                        if let Some(list) = list {
                            replace(conn, id, &list).await?;
                        }
                        Ok(row)
                    })
                    .await
                    .map_err(map_diesel_error)?;
                self.with_fallbacks(&mut conn, row).await
            })
            .await
    }

    async fn set_default(&self, id: Uuid) -> Result<AiConfig, RepoError> {
        self.cache
            .after(async {
                let mut conn = conn(&self.pool).await?;
                let row: AiConfigRow = conn
                    .transaction::<_, diesel::result::Error, _>(async move |conn| {
                        // Locks the row (and proves it exists) before the old default goes.
                        ai_configs::table
                            .find(id)
                            .select(ai_configs::id)
                            .for_update()
                            .first::<Uuid>(conn)
                            .await?;
                        clear_any_default(conn).await?;
                        diesel::update(ai_configs::table.find(id))
                            .set(ai_configs::is_default.eq(true))
                            .returning(AiConfigRow::as_returning())
                            .get_result(conn)
                            .await
                    })
                    .await
                    .map_err(map_diesel_error)?;
                self.with_fallbacks(&mut conn, row).await
            })
            .await
    }

    async fn clear_default(&self, id: Uuid) -> Result<AiConfig, RepoError> {
        self.cache
            .after(async {
                let mut conn = conn(&self.pool).await?;
                let row = diesel::update(ai_configs::table.find(id))
                    .set(ai_configs::is_default.eq(false))
                    .returning(AiConfigRow::as_returning())
                    .get_result(&mut conn)
                    .await
                    .map_err(map_diesel_error)?;
                self.with_fallbacks(&mut conn, row).await
            })
            .await
    }

    async fn default_config(&self) -> Result<Option<AiConfig>, RepoError> {
        if let Some(config) = self.configs.get(&self.cache, &None) {
            return Ok(config);
        }
        let ticket = self.cache.ticket();
        let mut conn = conn(&self.pool).await?;
        let config = ai_configs::table
            .filter(ai_configs::is_default.eq(true))
            .select(AiConfigRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?
            .map(|r| r.into_config(&self.secrets))
            .transpose()?;
        let config = match config {
            Some(c) => Some(attach_one(&mut conn, c).await.map_err(map_diesel_error)?),
            None => None,
        };
        self.configs.put(ticket, None, &config);
        Ok(config)
    }

    async fn projects_using(&self, id: Uuid) -> Result<Vec<(ProjectId, String)>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let rows: Vec<(Uuid, String)> = projects::table
            .filter(projects::ai_config_id.eq(id))
            .select((projects::id, projects::full_path))
            .order((projects::full_path.asc(), projects::id.asc()))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(rows
            .into_iter()
            .map(|(id, path)| (ProjectId(id), path))
            .collect())
    }

    async fn delete(&self, id: Uuid) -> Result<(), RepoError> {
        self.cache
            .after(async {
                let mut conn = conn(&self.pool).await?;
                // `projects.ai_config_id` is ON DELETE SET NULL: bound projects fall back.
                let rows = diesel::delete(ai_configs::table.find(id))
                    .execute(&mut conn)
                    .await
                    .map_err(map_diesel_error)?;
                found(rows)
            })
            .await
    }
}
