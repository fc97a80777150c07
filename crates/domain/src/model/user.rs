//! Users of the dashboard and API.

use super::Role;
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// A stored user, without the password hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub id: Uuid,
    pub email: String,
    pub name: String,
    pub role: Role,
    pub is_root: bool,
    pub disabled: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A user to insert; `password_hash` is already hashed.
#[derive(Debug, Clone)]
pub struct NewUser {
    pub email: String,
    pub name: String,
    pub password_hash: String,
    pub role: Role,
    pub is_root: bool,
}

/// Fields an admin may change; `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct UserChanges {
    pub email: Option<String>,
    pub name: Option<String>,
    pub password_hash: Option<String>,
    pub role: Option<Role>,
    pub disabled: Option<bool>,
}

/// Emails are compared case-insensitively, so they are stored trimmed and lower-cased.
#[must_use]
pub fn normalize_email(email: &str) -> String {
    email.trim().to_lowercase()
}
