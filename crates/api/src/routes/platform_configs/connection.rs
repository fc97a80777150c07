//! Checking a config against its platform, and the hostA user search through it.

use super::{nullable_auth_type_schema, platform_type_schema};
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::{AuthUser, PageParams, RequirePermission, ValidatedJson, perm};
use crate::routes::dto::PlatformUserDto;
use crate::state::AppState;
use actix_web::{HttpResponse, get, post, web};
use reviewd_domain::model::{AuthType, PlatformPage, PlatformType, PlatformUser, SecretString};
use reviewd_domain::services::ConnectionReport;
use reviewd_domain::services::platform_access::app_credentials;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;
use validator::Validate;

/// A connection to try; nothing is stored.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct TestPlatformConnectionBody {
    #[serde(deserialize_with = "crate::routes::serde_helpers::from_text")]
    #[schema(schema_with = platform_type_schema)]
    platform_type: PlatformType,
    /// An `http(s)://` URL.
    #[validate(length(min = 1, max = 2000, message = "is required"))]
    #[schema(schema_with = crate::field_schemas::base_url)]
    base_url: String,
    /// Required: the token to try.
    #[validate(length(max = 4096))]
    #[schema(value_type = String, max_length = 4096, pattern = r"^[^\u0000]*[^\u0000\u0009-\u000d\u0020\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\u0000]*$")]
    access_token: Option<String>,
    /// `token` when absent.
    #[serde(
        default,
        deserialize_with = "crate::routes::serde_helpers::from_optional_text"
    )]
    #[schema(schema_with = nullable_auth_type_schema)]
    auth_type: Option<AuthType>,
    /// `app`: the GitHub App's numeric id.
    #[validate(length(max = 500))]
    #[schema(max_length = 500)]
    app_id: Option<String>,
    /// `app`: the App's private key (PEM).
    #[validate(length(max = 16384))]
    #[schema(max_length = 16384)]
    private_key: Option<String>,
    /// `app`: one installation to try instead of all.
    #[validate(range(min = 1, message = "must be a positive number"))]
    #[schema(minimum = 1)]
    installation_id: Option<i64>,
}

/// The identity behind the token.
#[derive(Serialize, ToSchema)]
pub struct PlatformTokenUserDto {
    id: String,
    name: Option<String>,
    username: String,
}

/// What the platform said.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlatformConnectionDetailsDto {
    /// How many projects the token sees, once it was accepted.
    project_count: Option<usize>,
    /// The token's scopes, when the platform reports them.
    scopes: Option<Vec<String>>,
    /// Who the token is, when the platform accepted it.
    user: Option<PlatformTokenUserDto>,
}

/// The outcome of a connection test: a failure is reported here, not as an error.
#[derive(Serialize, ToSchema)]
pub struct PlatformConnectionTestDto {
    details: PlatformConnectionDetailsDto,
    message: String,
    /// `true` when the token is accepted, has the scopes needed and sees projects.
    success: bool,
}

impl From<ConnectionReport> for PlatformConnectionTestDto {
    fn from(report: ConnectionReport) -> Self {
        let user = report.identity.as_ref().map(|i| PlatformTokenUserDto {
            id: i.user_id.clone(),
            name: i.name.clone(),
            username: i.username.clone(),
        });
        PlatformConnectionTestDto {
            details: PlatformConnectionDetailsDto {
                project_count: report.project_count,
                scopes: report.identity.and_then(|i| i.scopes),
                user,
            },
            message: report.message,
            success: report.success,
        }
    }
}

/// Tries a connection without storing anything (`config:update`).
#[utoipa::path(
    request_body = TestPlatformConnectionBody,
    responses((status = 200, body = Data<PlatformConnectionTestDto>)),
)]
#[post("/test-connection")]
pub(super) async fn test_platform_connection(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ConfigUpdate>,
    body: ValidatedJson<TestPlatformConnectionBody>,
) -> Result<HttpResponse, ApiError> {
    let b = body.0;
    let report = state
        .platform_configs
        .test_connection(
            b.platform_type,
            &b.base_url,
            b.access_token.as_deref(),
            b.auth_type.unwrap_or(AuthType::Token),
            app_credentials(
                b.app_id.as_deref(),
                b.private_key.map(SecretString::new).as_ref(),
                b.installation_id,
            ),
        )
        .await?;
    Ok(envelope::ok(PlatformConnectionTestDto::from(report)))
}

/// The search and the page (`pageSize`/`perPage` at most 100).
#[derive(Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub(super) struct HostAUsersQuery {
    /// Text to look for, as the platform's user search understands it.
    search: Option<String>,
    /// Only members of this platform project (its id on the platform).
    project_id: Option<String>,
    #[serde(flatten)]
    #[param(ignore)]
    page: PageParams,
}

/// Where the platform's list stands.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HostAUsersPaginationDto {
    has_next: bool,
    page: u32,
    per_page: u32,
    /// When the platform tells it.
    total: Option<u64>,
}

/// A page of hostA users.
#[derive(Serialize, ToSchema)]
pub struct HostAUsersDto {
    pagination: HostAUsersPaginationDto,
    users: Vec<PlatformUserDto>,
}

impl From<PlatformPage<PlatformUser>> for HostAUsersDto {
    fn from(page: PlatformPage<PlatformUser>) -> Self {
        HostAUsersDto {
            pagination: HostAUsersPaginationDto {
                has_next: page.has_next,
                page: page.page,
                per_page: page.per_page,
                total: page.total,
            },
            users: page.items.into_iter().map(PlatformUserDto::from).collect(),
        }
    }
}

/// Users of a hostA instance, or of one of its projects (400 for a hostB config).
#[utoipa::path(
    params(HostAUsersQuery, PageParams),
    responses((status = 200, body = Data<HostAUsersDto>)),
)]
#[get("/{id}/hostA/users")]
pub(super) async fn search_host_a_users(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
    query: web::Query<HostAUsersQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = query.page.to_request(20, 100)?;
    let result = state
        .platform_configs
        .search_users(
            *id,
            query.search.as_deref(),
            query.project_id.as_deref(),
            page.page,
            page.page_size,
        )
        .await?;
    Ok(envelope::ok(HostAUsersDto::from(result)))
}
