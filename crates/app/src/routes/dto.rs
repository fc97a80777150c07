//! Response shapes shared by several routes.

use chrono::{DateTime, Utc};
use reviewd_domain::model::User;
use serde::Serialize;
use uuid::Uuid;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UserDto {
    pub id: Uuid,
    pub email: String,
    pub name: String,
    pub role: &'static str,
    pub permissions: Vec<&'static str>,
    pub is_root: bool,
    pub disabled: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<User> for UserDto {
    fn from(u: User) -> Self {
        UserDto {
            id: u.id,
            email: u.email,
            name: u.name,
            role: u.role.as_str(),
            permissions: u.role.permissions().iter().map(|p| p.as_str()).collect(),
            is_root: u.is_root,
            disabled: u.disabled,
            created_at: u.created_at,
            updated_at: u.updated_at,
        }
    }
}
