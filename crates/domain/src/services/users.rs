//! Administration of users (admin only; the web layer enforces the role).

use super::ServiceError;
use crate::model::user::normalize_email;
use crate::model::{NewUser, Role, User, UserChanges};
use crate::ports::{PasswordHasher, UserRepository};
use crate::{Page, PageRequest};
use std::sync::Arc;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct NewUserInput {
    pub email: String,
    pub name: String,
    pub password: String,
    pub role: Role,
}

#[derive(Debug, Clone, Default)]
pub struct UserUpdateInput {
    pub email: Option<String>,
    pub name: Option<String>,
    pub password: Option<String>,
    pub role: Option<Role>,
    pub disabled: Option<bool>,
}

pub struct UserService {
    users: Arc<dyn UserRepository>,
    passwords: Arc<dyn PasswordHasher>,
}

impl UserService {
    pub fn new(users: Arc<dyn UserRepository>, passwords: Arc<dyn PasswordHasher>) -> Self {
        Self { users, passwords }
    }

    /// # Errors
    /// Store failures.
    pub async fn list(&self, page: PageRequest) -> Result<Page<User>, ServiceError> {
        Ok(self.users.list(page).await?)
    }

    /// # Errors
    /// `NotFound` for an unknown id.
    pub async fn get(&self, id: Uuid) -> Result<User, ServiceError> {
        self.users
            .get(id)
            .await
            .map_err(|e| ServiceError::from_repo(e, "user"))
    }

    /// # Errors
    /// `Conflict` when the email is taken.
    pub async fn create(&self, input: NewUserInput) -> Result<User, ServiceError> {
        let user = self
            .users
            .create(NewUser {
                email: normalize_email(&input.email),
                name: input.name.trim().to_owned(),
                password_hash: self.passwords.hash(&input.password).await?,
                role: input.role,
                is_root: false,
            })
            .await?;
        tracing::info!(user.id = %user.id, user.role = %user.role, "user.created");
        Ok(user)
    }

    /// # Errors
    /// `NotFound` for an unknown id, `Conflict` for a taken email, `Forbidden` when
    /// the change would demote or disable the root user (who must stay able to log in).
    pub async fn update(&self, id: Uuid, input: UserUpdateInput) -> Result<User, ServiceError> {
        let current = self.get(id).await?;
        if current.is_root
            && (input.role.is_some_and(|r| r != Role::Admin) || input.disabled == Some(true))
        {
            return Err(ServiceError::Forbidden(
                "the root user stays an enabled admin".to_owned(),
            ));
        }
        let password_hash = match input.password {
            Some(password) => Some(self.passwords.hash(&password).await?),
            None => None,
        };
        let changes = UserChanges {
            email: input.email.as_deref().map(normalize_email),
            name: input.name.map(|n| n.trim().to_owned()),
            password_hash,
            role: input.role,
            disabled: input.disabled,
        };
        let user = self
            .users
            .update(id, changes)
            .await
            .map_err(|e| ServiceError::from_repo(e, "user"))?;
        tracing::info!(user.id = %user.id, "user.updated");
        Ok(user)
    }
}
