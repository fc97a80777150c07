//! Response shapes shared by several routes, and schema helpers for them.

use crate::field_schemas::string_enum;
use chrono::{DateTime, Utc};
use reviewd_domain::model::{MASK, MergeRequest, Permission, PlatformUser, Role, User};
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

/// A stored secret: `***` when set (never the secret itself), `null` when unset.
pub fn masked_secret_schema() -> utoipa::openapi::Object {
    let mut schema = nullable_string_enum([MASK]);
    schema.description =
        Some("`***` when set (never the secret itself), `null` when unset.".to_owned());
    schema
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

/// A user of a platform (a project's member, a hostA user found by search).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlatformUserDto {
    id: String,
    username: String,
    name: String,
    avatar_url: String,
    state: String,
    web_url: String,
}

impl From<PlatformUser> for PlatformUserDto {
    fn from(u: PlatformUser) -> Self {
        PlatformUserDto {
            id: u.id,
            username: u.username,
            name: u.name,
            avatar_url: u.avatar_url,
            state: u.state,
            web_url: u.web_url,
        }
    }
}

/// A merge request (hostA) or pull request (hostB) as its platform lists it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MergeRequestDto {
    iid: i64,
    title: String,
    description: Option<String>,
    /// The platform's own word for it (`opened`, `merged`, `closed`...).
    state: String,
    web_url: String,
    source_branch: String,
    target_branch: String,
    author_id: Option<String>,
    author_username: Option<String>,
    head_sha: Option<String>,
    base_sha: Option<String>,
    start_sha: Option<String>,
    draft: bool,
    created_at: Option<DateTime<Utc>>,
    updated_at: Option<DateTime<Utc>>,
}

impl From<MergeRequest> for MergeRequestDto {
    fn from(m: MergeRequest) -> Self {
        MergeRequestDto {
            iid: m.iid,
            title: m.title,
            description: m.description,
            state: m.state,
            web_url: m.web_url,
            source_branch: m.source_branch,
            target_branch: m.target_branch,
            author_id: m.author_id,
            author_username: m.author_username,
            head_sha: m.head_sha,
            base_sha: m.base_sha,
            start_sha: m.start_sha,
            draft: m.draft,
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}
