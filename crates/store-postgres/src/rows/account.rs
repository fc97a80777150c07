//! Rows of users, their sessions and their API keys.

use crate::error::corrupt;
use crate::schema::{api_keys, sessions, users};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use reviewd_domain::model::{ApiKey, Session, User};
use reviewd_domain::ports::RepoError;
use uuid::Uuid;

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = users, check_for_backend(diesel::pg::Pg))]
pub(crate) struct UserRow {
    pub id: Uuid,
    pub email: String,
    pub name: String,
    pub password_hash: String,
    pub role: String,
    pub is_root: bool,
    pub disabled: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl UserRow {
    pub(crate) fn into_user_and_hash(self) -> Result<(User, String), RepoError> {
        let role = self
            .role
            .parse()
            .map_err(|e| corrupt(format!("user {}: {e}", self.id)))?;
        let user = User {
            id: self.id,
            email: self.email,
            name: self.name,
            role,
            is_root: self.is_root,
            disabled: self.disabled,
            created_at: self.created_at,
            updated_at: self.updated_at,
        };
        Ok((user, self.password_hash))
    }

    pub(crate) fn into_user(self) -> Result<User, RepoError> {
        self.into_user_and_hash().map(|(user, _)| user)
    }
}

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = sessions, check_for_backend(diesel::pg::Pg))]
pub(crate) struct SessionRow {
    pub id: Uuid,
    pub user_id: Uuid,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

impl From<SessionRow> for Session {
    fn from(row: SessionRow) -> Self {
        Session {
            id: row.id,
            user_id: row.user_id,
            created_at: row.created_at,
            expires_at: row.expires_at,
        }
    }
}

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = api_keys, check_for_backend(diesel::pg::Pg))]
pub(crate) struct ApiKeyRow {
    pub id: Uuid,
    pub user_id: Uuid,
    pub name: String,
    pub prefix: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
}

impl From<ApiKeyRow> for ApiKey {
    fn from(row: ApiKeyRow) -> Self {
        ApiKey {
            id: row.id,
            user_id: row.user_id,
            name: row.name,
            prefix: row.prefix,
            created_at: row.created_at,
            expires_at: row.expires_at,
            last_used_at: row.last_used_at,
            revoked_at: row.revoked_at,
        }
    }
}
