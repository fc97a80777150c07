//! Platform configs, their secrets sealed at rest, with one default per platform
//! type.

use super::conn;
use crate::PgPool;
use crate::cache::{ConfigCache, Slot};
use crate::error::map_diesel_error;
use crate::rows::{PlatformConfigRow, seal};
use crate::schema::{platform_configs, projects};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use reviewd_crypto::SecretBox;
use reviewd_domain::model::{
    NewPlatformConfig, PlatformConfig, PlatformConfigChanges, PlatformType,
};
use reviewd_domain::ports::{PlatformConfigRepository, RepoError};
use uuid::Uuid;

pub struct PgPlatformConfigRepository {
    pool: PgPool,
    secrets: SecretBox,
    cache: ConfigCache,
    /// `list` by type (`""`: any) and enabled-only: every webhook's token check.
    listed: Slot<(&'static str, bool), Vec<PlatformConfig>>,
    /// Configs by id: each claim's clone credentials and each review's client.
    by_id: Slot<Uuid, PlatformConfig>,
}

impl PgPlatformConfigRepository {
    #[must_use]
    pub fn new(pool: PgPool, secrets: SecretBox) -> Self {
        Self {
            pool,
            secrets,
            cache: ConfigCache::default(),
            listed: Slot::default(),
            by_id: Slot::default(),
        }
    }

    /// Serves `list` from `cache` while it says nothing changed.
    #[must_use]
    pub fn with_cache(mut self, cache: ConfigCache) -> Self {
        self.cache = cache;
        self
    }

    fn decrypt_all(&self, rows: Vec<PlatformConfigRow>) -> Result<Vec<PlatformConfig>, RepoError> {
        rows.into_iter()
            .map(|r| r.into_config(&self.secrets))
            .collect()
    }
}

#[derive(AsChangeset)]
#[diesel(table_name = platform_configs)]
struct ConfigChangeset {
    name: Option<String>,
    base_url: Option<String>,
    auth_type: Option<String>,
    access_token_enc: Option<Option<String>>,
    app_id: Option<Option<String>>,
    app_secret_enc: Option<Option<String>>,
    webhook_secret_enc: Option<Option<String>>,
    refresh_token_enc: Option<Option<String>>,
    token_expires_at: Option<Option<DateTime<Utc>>>,
    oauth_state: Option<Option<String>>,
    oauth_redirect_uri: Option<Option<String>>,
    token_scopes: Option<Vec<String>>,
    enabled: Option<bool>,
    private_key_enc: Option<Option<String>>,
    installation_id: Option<Option<i64>>,
    updated_at: DateTime<Utc>,
}

/// Unsets the default of a type so another config can take it (partial unique index).
async fn clear_default(
    conn: &mut diesel_async::AsyncPgConnection,
    platform_type: &str,
) -> QueryResult<usize> {
    diesel::update(platform_configs::table)
        .filter(platform_configs::platform_type.eq(platform_type))
        .filter(platform_configs::is_default.eq(true))
        .set(platform_configs::is_default.eq(false))
        .execute(conn)
        .await
}

#[async_trait]
impl PlatformConfigRepository for PgPlatformConfigRepository {
    async fn list(
        &self,
        platform_type: Option<PlatformType>,
        enabled_only: bool,
    ) -> Result<Vec<PlatformConfig>, RepoError> {
        let key = (platform_type.map_or("", PlatformType::as_str), enabled_only);
        if let Some(configs) = self.listed.get(&self.cache, &key) {
            return Ok(configs);
        }
        let ticket = self.cache.ticket();
        let mut conn = conn(&self.pool).await?;
        let mut query = platform_configs::table
            .select(PlatformConfigRow::as_select())
            .into_boxed();
        if let Some(t) = platform_type {
            query = query.filter(platform_configs::platform_type.eq(t.as_str()));
        }
        if enabled_only {
            query = query.filter(platform_configs::enabled.eq(true));
        }
        let rows = query
            .order((
                platform_configs::created_at.asc(),
                platform_configs::id.asc(),
            ))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let configs = self.decrypt_all(rows)?;
        self.listed.put(ticket, key, &configs);
        Ok(configs)
    }

    async fn get(&self, id: Uuid) -> Result<PlatformConfig, RepoError> {
        if let Some(found) = self.by_id.get(&self.cache, &id) {
            return Ok(found);
        }
        let ticket = self.cache.ticket();
        let mut conn = conn(&self.pool).await?;
        let found = platform_configs::table
            .find(id)
            .select(PlatformConfigRow::as_select())
            .first(&mut conn)
            .await
            .map_err(map_diesel_error)?
            .into_config(&self.secrets)?;
        self.by_id.put(ticket, id, &found);
        Ok(found)
    }

    async fn create(&self, c: NewPlatformConfig) -> Result<PlatformConfig, RepoError> {
        self.cache
            .after(async {
                let mut conn = conn(&self.pool).await?;
                let values = (
                    platform_configs::name.eq(c.name),
                    platform_configs::platform_type.eq(c.platform_type.as_str()),
                    platform_configs::base_url.eq(c.base_url),
                    platform_configs::auth_type.eq(c.auth_type.as_str()),
                    platform_configs::access_token_enc
                        .eq(seal(&self.secrets, c.access_token.as_ref())),
                    platform_configs::app_id.eq(c.app_id),
                    platform_configs::app_secret_enc.eq(seal(&self.secrets, c.app_secret.as_ref())),
                    platform_configs::webhook_secret_enc
                        .eq(seal(&self.secrets, c.webhook_secret.as_ref())),
                    platform_configs::token_scopes.eq(c.token_scopes),
                    platform_configs::enabled.eq(c.enabled),
                    platform_configs::is_default.eq(c.is_default),
                    platform_configs::private_key_enc
                        .eq(seal(&self.secrets, c.private_key.as_ref())),
                    platform_configs::installation_id.eq(c.installation_id),
                );
                let platform_type = c.platform_type.as_str();
                let is_default = c.is_default;
                let row: PlatformConfigRow = conn
                    .transaction::<_, diesel::result::Error, _>(async move |conn| {
                        if is_default {
                            clear_default(conn, platform_type).await?;
                        }
                        diesel::insert_into(platform_configs::table)
                            .values(values)
                            .returning(PlatformConfigRow::as_returning())
                            .get_result(conn)
                            .await
                    })
                    .await
                    .map_err(map_diesel_error)?;
                row.into_config(&self.secrets)
            })
            .await
    }

    async fn update(
        &self,
        id: Uuid,
        c: PlatformConfigChanges,
    ) -> Result<PlatformConfig, RepoError> {
        self.cache
            .after(async {
                let mut conn = conn(&self.pool).await?;
                let seal_change = |v: Option<Option<reviewd_domain::model::SecretString>>| {
                    v.map(|inner| seal(&self.secrets, inner.as_ref()))
                };
                let changeset = ConfigChangeset {
                    name: c.name,
                    base_url: c.base_url,
                    auth_type: c.auth_type.map(|a| a.as_str().to_owned()),
                    access_token_enc: seal_change(c.access_token),
                    app_id: c.app_id,
                    app_secret_enc: seal_change(c.app_secret),
                    webhook_secret_enc: seal_change(c.webhook_secret),
                    refresh_token_enc: seal_change(c.refresh_token),
                    token_expires_at: c.token_expires_at,
                    oauth_state: c.oauth_state,
                    oauth_redirect_uri: c.oauth_redirect_uri,
                    token_scopes: c.token_scopes,
                    enabled: c.enabled,
                    private_key_enc: seal_change(c.private_key),
                    installation_id: c.installation_id,
                    updated_at: Utc::now(),
                };
                diesel::update(platform_configs::table.find(id))
                    .set(changeset)
                    .returning(PlatformConfigRow::as_returning())
                    .get_result(&mut conn)
                    .await
                    .map_err(map_diesel_error)?
                    .into_config(&self.secrets)
            })
            .await
    }

    async fn set_default(&self, id: Uuid) -> Result<PlatformConfig, RepoError> {
        self.cache
            .after(async {
                let mut conn = conn(&self.pool).await?;
                let row: PlatformConfigRow = conn
                    .transaction::<_, diesel::result::Error, _>(async move |conn| {
                        let platform_type: String = platform_configs::table
                            .find(id)
                            .select(platform_configs::platform_type)
                            .for_update()
                            .first(conn)
                            .await?;
                        clear_default(conn, &platform_type).await?;
                        diesel::update(platform_configs::table.find(id))
                            .set((
                                platform_configs::is_default.eq(true),
                                platform_configs::updated_at.eq(Utc::now()),
                            ))
                            .returning(PlatformConfigRow::as_returning())
                            .get_result(conn)
                            .await
                    })
                    .await
                    .map_err(map_diesel_error)?;
                row.into_config(&self.secrets)
            })
            .await
    }

    async fn count_projects(&self, id: Uuid) -> Result<u64, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let n: i64 = projects::table
            .filter(projects::platform_config_id.eq(id))
            .count()
            .get_result(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(super::count(n))
    }

    async fn delete_with_projects(&self, id: Uuid) -> Result<u64, RepoError> {
        self.cache
            .after(async {
                let mut conn = conn(&self.pool).await?;
                conn.transaction::<_, diesel::result::Error, _>(async move |conn| {
                    {
                        let (platform_type, was_default): (String, bool) = platform_configs::table
                            .find(id)
                            .select((
                                platform_configs::platform_type,
                                platform_configs::is_default,
                            ))
                            .for_update()
                            .first(conn)
                            .await?;
                        let deleted = diesel::delete(
                            projects::table.filter(projects::platform_config_id.eq(id)),
                        )
                        .execute(conn)
                        .await?;
                        diesel::delete(platform_configs::table.find(id))
                            .execute(conn)
                            .await?;
                        if was_default {
                            // Keep one default per type while configs of that type remain.
                            let successor: Option<Uuid> = platform_configs::table
                                .filter(platform_configs::platform_type.eq(&platform_type))
                                .order((
                                    platform_configs::created_at.asc(),
                                    platform_configs::id.asc(),
                                ))
                                .select(platform_configs::id)
                                .first(conn)
                                .await
                                .optional()?;
                            if let Some(next) = successor {
                                diesel::update(platform_configs::table.find(next))
                                    .set(platform_configs::is_default.eq(true))
                                    .execute(conn)
                                    .await?;
                            }
                        }
                        Ok(deleted as u64)
                    }
                })
                .await
                .map_err(map_diesel_error)
            })
            .await
    }
}
