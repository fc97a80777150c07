//! API keys: created, found while active, revoked, their use recorded at most
//! once a minute.

use super::{conn, found, paginate};
use crate::PgPool;
use crate::error::map_diesel_error;
use crate::rows::{ApiKeyRow, UserRow};
use crate::schema::{api_keys, users};
use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use reviewd_domain::model::{ApiKey, NewApiKey, User};
use reviewd_domain::ports::{ApiKeyRepository, RepoError};
use reviewd_domain::{Page, PageRequest};
use std::collections::HashMap;
use std::sync::Mutex;
use uuid::Uuid;

/// `last_used_at` is rewritten at most this often, so busy keys (runners polling
/// every second) do not cost a write per request.
const TOUCH_INTERVAL_SECS: i64 = 60;

/// Keys whose last write this process remembers, before it forgets them all (one
/// per key in use: bounded by the keys there are).
const TOUCHED_KEYS: usize = 10_000;

pub struct PgApiKeyRepository {
    pool: PgPool,
    touched: TouchLog,
}

impl PgApiKeyRepository {
    #[must_use]
    pub fn new(pool: PgPool) -> Self {
        Self {
            pool,
            touched: TouchLog::default(),
        }
    }
}

/// When this process last wrote each key's `last_used_at`: within the interval the
/// write is skipped without a round trip (a runner polls several times a second,
/// and each poll would otherwise send an UPDATE that changes nothing). Other
/// replicas' writes are still filtered by the UPDATE itself.
#[derive(Default)]
struct TouchLog(Mutex<HashMap<Uuid, DateTime<Utc>>>);

impl TouchLog {
    /// Whether a write at or after `stale_before` was noted for `id`; if not, notes
    /// one at `now`.
    fn seen_since(&self, id: Uuid, stale_before: DateTime<Utc>, now: DateTime<Utc>) -> bool {
        let Ok(mut touched) = self.0.lock() else {
            return false;
        };
        if touched.get(&id).is_some_and(|at| *at >= stale_before) {
            return true;
        }
        if touched.len() >= TOUCHED_KEYS {
            touched.clear();
        }
        touched.insert(id, now);
        false
    }
}

#[async_trait]
impl ApiKeyRepository for PgApiKeyRepository {
    async fn create(&self, key: NewApiKey) -> Result<ApiKey, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let row = diesel::insert_into(api_keys::table)
            .values((
                api_keys::id.eq(Uuid::now_v7()),
                api_keys::user_id.eq(key.user_id),
                api_keys::name.eq(key.name),
                api_keys::prefix.eq(key.prefix),
                api_keys::key_hash.eq(key.key_hash),
                api_keys::expires_at.eq(key.expires_at),
            ))
            .returning(ApiKeyRow::as_returning())
            .get_result(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(row.into())
    }

    async fn list_for_user(
        &self,
        user_id: Uuid,
        page: PageRequest,
    ) -> Result<Page<ApiKey>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let owned = || api_keys::table.filter(api_keys::user_id.eq(user_id));
        let rows = owned()
            .select(ApiKeyRow::as_select())
            .order((api_keys::created_at.desc(), api_keys::id.desc()));
        paginate(&mut conn, page, owned().count(), rows, |r: ApiKeyRow| {
            Ok(r.into())
        })
        .await
    }

    async fn find_active(
        &self,
        key_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<(ApiKey, User)>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let found: Option<(ApiKeyRow, UserRow)> = api_keys::table
            .inner_join(users::table)
            .filter(api_keys::key_hash.eq(key_hash))
            .filter(api_keys::revoked_at.is_null())
            .filter(
                api_keys::expires_at
                    .is_null()
                    .or(api_keys::expires_at.gt(now)),
            )
            .select((ApiKeyRow::as_select(), UserRow::as_select()))
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        found
            .map(|(k, u)| Ok((k.into(), u.into_user()?)))
            .transpose()
    }

    async fn revoke(
        &self,
        id: Uuid,
        owner: Option<Uuid>,
        now: DateTime<Utc>,
    ) -> Result<(), RepoError> {
        let mut conn = conn(&self.pool).await?;
        let mut query = diesel::update(api_keys::table)
            .filter(api_keys::id.eq(id))
            .filter(api_keys::revoked_at.is_null())
            .into_boxed();
        if let Some(owner) = owner {
            query = query.filter(api_keys::user_id.eq(owner));
        }
        let n = query
            .set(api_keys::revoked_at.eq(now))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        found(n)
    }

    async fn touch(&self, id: Uuid, now: DateTime<Utc>) -> Result<(), RepoError> {
        let stale_before = now - Duration::seconds(TOUCH_INTERVAL_SECS);
        if self.touched.seen_since(id, stale_before, now) {
            return Ok(());
        }
        let mut conn = conn(&self.pool).await?;
        diesel::update(api_keys::table)
            .filter(api_keys::id.eq(id))
            .filter(
                api_keys::last_used_at
                    .is_null()
                    .or(api_keys::last_used_at.lt(stale_before)),
            )
            .set(api_keys::last_used_at.eq(now))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{TOUCH_INTERVAL_SECS, TouchLog};
    use chrono::{Duration, Utc};
    use uuid::Uuid;

    #[test]
    fn a_key_is_written_once_a_minute_by_this_process() {
        let log = TouchLog::default();
        let (key, other) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let stale = |now: chrono::DateTime<Utc>| now - Duration::seconds(TOUCH_INTERVAL_SECS);
        let start = Utc::now();
        assert!(
            !log.seen_since(key, stale(start), start),
            "the first use is written"
        );
        let soon = start + Duration::seconds(30);
        assert!(
            log.seen_since(key, stale(soon), soon),
            "within the minute: skipped"
        );
        assert!(
            !log.seen_since(other, stale(soon), soon),
            "another key is its own"
        );
        let later = start + Duration::seconds(61);
        assert!(
            !log.seen_since(key, stale(later), later),
            "after the minute: written"
        );
        assert!(
            log.seen_since(key, stale(later), later),
            "and then skipped again"
        );
    }
}
