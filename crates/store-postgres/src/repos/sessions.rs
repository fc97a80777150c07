//! Login sessions, found by their token's hash while unexpired.

use super::conn;
use crate::PgPool;
use crate::error::map_diesel_error;
use crate::rows::{SessionRow, UserRow};
use crate::schema::{sessions, users};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use reviewd_domain::model::{NewSession, Session, User};
use reviewd_domain::ports::{RepoError, SessionRepository};

pub struct PgSessionRepository {
    pool: PgPool,
}

impl PgSessionRepository {
    #[must_use]
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

#[async_trait]
impl SessionRepository for PgSessionRepository {
    async fn create(&self, session: NewSession) -> Result<Session, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let row = diesel::insert_into(sessions::table)
            .values((
                sessions::id.eq(uuid::Uuid::now_v7()),
                sessions::user_id.eq(session.user_id),
                sessions::token_hash.eq(session.token_hash),
                sessions::user_agent.eq(session.user_agent),
                sessions::ip.eq(session.ip),
                sessions::expires_at.eq(session.expires_at),
            ))
            .returning(SessionRow::as_returning())
            .get_result(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(row.into())
    }

    async fn find_active(
        &self,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<(Session, User)>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let found: Option<(SessionRow, UserRow)> = sessions::table
            .inner_join(users::table)
            .filter(sessions::token_hash.eq(token_hash))
            .filter(sessions::expires_at.gt(now))
            .select((SessionRow::as_select(), UserRow::as_select()))
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        found
            .map(|(s, u)| Ok((s.into(), u.into_user()?)))
            .transpose()
    }

    async fn delete(&self, token_hash: &str) -> Result<bool, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let n = diesel::delete(sessions::table.filter(sessions::token_hash.eq(token_hash)))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(n > 0)
    }

    async fn delete_expired(&self, now: DateTime<Utc>) -> Result<u64, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let n = diesel::delete(sessions::table.filter(sessions::expires_at.le(now)))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(n as u64)
    }
}
