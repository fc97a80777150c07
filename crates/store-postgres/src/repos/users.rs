//! Users and their credentials.

use super::{conn, paginate};
use crate::PgPool;
use crate::error::map_diesel_error;
use crate::rows::UserRow;
use crate::schema::users;
use async_trait::async_trait;
use chrono::Utc;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use reviewd_domain::model::{NewUser, User, UserChanges};
use reviewd_domain::ports::{RepoError, UserRepository};
use reviewd_domain::{Page, PageRequest};
use uuid::Uuid;

pub struct PgUserRepository {
    pool: PgPool,
}

impl PgUserRepository {
    #[must_use]
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

#[derive(AsChangeset)]
#[diesel(table_name = users)]
struct UserChangeset {
    email: Option<String>,
    name: Option<String>,
    password_hash: Option<String>,
    role: Option<String>,
    disabled: Option<bool>,
    updated_at: chrono::DateTime<Utc>,
}

#[async_trait]
impl UserRepository for PgUserRepository {
    async fn create(&self, user: NewUser) -> Result<User, RepoError> {
        let mut conn = conn(&self.pool).await?;
        diesel::insert_into(users::table)
            .values((
                users::email.eq(user.email),
                users::name.eq(user.name),
                users::password_hash.eq(user.password_hash),
                users::role.eq(user.role.as_str()),
                users::is_root.eq(user.is_root),
            ))
            .returning(UserRow::as_returning())
            .get_result(&mut conn)
            .await
            .map_err(map_diesel_error)?
            .into_user()
    }

    async fn get(&self, id: Uuid) -> Result<User, RepoError> {
        let mut conn = conn(&self.pool).await?;
        users::table
            .find(id)
            .select(UserRow::as_select())
            .first(&mut conn)
            .await
            .map_err(map_diesel_error)?
            .into_user()
    }

    async fn find_credentials(&self, email: &str) -> Result<Option<(User, String)>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        users::table
            .filter(users::email.eq(email))
            .select(UserRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?
            .map(UserRow::into_user_and_hash)
            .transpose()
    }

    async fn list(&self, page: PageRequest) -> Result<Page<User>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let rows = users::table
            .select(UserRow::as_select())
            .order((users::created_at.asc(), users::id.asc()));
        paginate(
            &mut conn,
            page,
            users::table.count(),
            rows,
            UserRow::into_user,
        )
        .await
    }

    async fn update(&self, id: Uuid, changes: UserChanges) -> Result<User, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let changeset = UserChangeset {
            email: changes.email,
            name: changes.name,
            password_hash: changes.password_hash,
            role: changes.role.map(|r| r.as_str().to_owned()),
            disabled: changes.disabled,
            updated_at: Utc::now(),
        };
        diesel::update(users::table.find(id))
            .set(changeset)
            .returning(UserRow::as_returning())
            .get_result(&mut conn)
            .await
            .map_err(map_diesel_error)?
            .into_user()
    }

    async fn root_exists(&self) -> Result<bool, RepoError> {
        let mut conn = conn(&self.pool).await?;
        diesel::select(diesel::dsl::exists(
            users::table.filter(users::is_root.eq(true)),
        ))
        .get_result(&mut conn)
        .await
        .map_err(map_diesel_error)
    }
}
