//! Response shapes shared by several routes, and schema helpers for them.

use crate::openapi::string_enum;
use chrono::{DateTime, Utc};
use reviewd_domain::model::{Permission, Role, User};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, SchemaType, Type};
use uuid::Uuid;

/// A string limited to `values`, or `null`: for an optional enumerated field of a
/// request body (`null` is taken as absent) or a response.
#[must_use]
pub fn nullable_string_enum(
    values: impl IntoIterator<Item = &'static str>,
) -> utoipa::openapi::Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .enum_values(Some(
            values
                .into_iter()
                .map(serde_json::Value::from)
                .chain([serde_json::Value::Null]),
        ))
        .build()
}

/// `admin`, `maintainer`, `developer` or `viewer`.
pub fn role_schema() -> utoipa::openapi::Object {
    string_enum(Role::ALL.iter().map(|r| r.as_str()))
}

/// A role, or `null` (unchanged).
pub fn nullable_role_schema() -> utoipa::openapi::Object {
    nullable_string_enum(Role::ALL.iter().map(|r| r.as_str()))
}

/// The permissions a role grants, e.g. `review:create`.
fn permissions_schema() -> utoipa::openapi::schema::Array {
    ArrayBuilder::new()
        .items(string_enum(Permission::ALL.iter().map(|p| p.as_str())))
        .unique_items(true)
        .build()
}

/// A user account: its role and the permissions that role grants.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserDto {
    pub id: Uuid,
    pub email: String,
    pub name: String,
    #[schema(schema_with = role_schema)]
    pub role: &'static str,
    #[schema(schema_with = permissions_schema)]
    pub permissions: Vec<&'static str>,
    /// The account created at first start; it stays an enabled admin.
    pub is_root: bool,
    /// A disabled user cannot log in, and their sessions and keys stop working.
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
