//! `/api/platform-configs`: connections to hostA/hostB instances. Secrets are shown
//! as `***` in every response except the admin-only access-token endpoint.

use super::dto::{PlatformUserDto, nullable_string_enum};
use crate::envelope::{self, Data, Items};
use crate::error::ApiError;
use crate::extract::{AuthUser, PageParams, RequireAdmin, RequirePermission, ValidatedJson, perm};
use crate::openapi::string_enum;
use crate::state::AppState;
use actix_web::{HttpResponse, delete, get, patch, post, web};
use chrono::{DateTime, Utc};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::{
    AuthType, MASK, PlatformConfig, PlatformPage, PlatformType, PlatformUser, SecretString,
};
use reviewd_domain::services::{ConnectionReport, PlatformConfigInput, PlatformConfigPatch};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa::openapi::schema::{ObjectBuilder, SchemaFormat, Type};
use utoipa_actix_web::{scope, service_config::ServiceConfig};
use uuid::Uuid;
use validator::Validate;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        scope("/platform-configs")
            .service(list_platform_configs)
            .service(create_platform_config)
            .service(list_enabled_platform_configs)
            .service(get_default_platform_config)
            .service(test_platform_connection)
            .service(list_platform_configs_by_type)
            .service(start_platform_oauth)
            .service(finish_platform_oauth)
            .service(refresh_platform_oauth)
            .service(get_platform_config)
            .service(update_platform_config)
            .service(delete_platform_config)
            .service(set_default_platform_config)
            .service(get_platform_access_token)
            .service(search_host_a_users),
    );
}

// Patterns of the text fields the service trims and checks (written out in each
// `pattern`, which takes only a literal). `W` is the set of characters Rust's `trim`
// removes (Unicode White_Space): `[\u0009-\u000d\u0020\u0085\u00a0\u1680\u2000-\u200a
// \u2028\u2029\u202f\u205f\u3000]`. No pattern lets the NUL character through (the
// edge refuses it, see `hygiene`).
// - not blank: `^[^NUL]*[^NUL W][^NUL]*$`, at least one character outside `W`.
// Base URLs are `crate::openapi::base_url`.

/// `hostA` (GitLab-compatible) or `hostB` (GitHub-compatible).
fn platform_type_schema() -> utoipa::openapi::Object {
    string_enum(PlatformType::ALL.iter().map(|t| t.as_str()))
}

/// A platform type, or `null` (absent).
fn nullable_platform_type_schema() -> utoipa::openapi::Object {
    nullable_string_enum(PlatformType::ALL.iter().map(|t| t.as_str()))
}

/// `token` (an access token) or `oauth` (an OAuth application).
fn auth_type_schema() -> utoipa::openapi::Object {
    string_enum(AuthType::ALL.iter().map(|t| t.as_str()))
}

/// An auth type, or `null` (absent: `token`, or unchanged on update).
fn nullable_auth_type_schema() -> utoipa::openapi::Object {
    nullable_string_enum(AuthType::ALL.iter().map(|t| t.as_str()))
}

/// A stored secret: `***` when set (never the secret itself), `null` when unset.
fn masked_secret_schema() -> utoipa::openapi::Object {
    let mut schema = nullable_string_enum([MASK]);
    schema.description =
        Some("`***` when set (never the secret itself), `null` when unset.".to_owned());
    schema
}

/// An absolute URI (`url::Url::parse` takes it).
fn uri_schema() -> utoipa::openapi::Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .format(Some(SchemaFormat::Custom("uri".to_owned())))
        .build()
}

/// The `{platform_type}` path segment: `hostA` or `hostB`.
struct PlatformTypeName;

impl utoipa::PartialSchema for PlatformTypeName {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        platform_type_schema().into()
    }
}

impl ToSchema for PlatformTypeName {}

/// A config as every response shows it: secrets replaced by `***` (or null when unset).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlatformConfigDto {
    id: Uuid,
    name: String,
    #[schema(schema_with = platform_type_schema)]
    platform_type: &'static str,
    /// The instance's URL, without trailing slash.
    base_url: String,
    #[schema(schema_with = auth_type_schema)]
    auth_type: &'static str,
    #[schema(schema_with = masked_secret_schema)]
    access_token: Option<&'static str>,
    /// The OAuth application's id.
    app_id: Option<String>,
    #[schema(schema_with = masked_secret_schema)]
    app_secret: Option<&'static str>,
    #[schema(schema_with = masked_secret_schema)]
    webhook_secret: Option<&'static str>,
    /// Whether an OAuth refresh token is stored.
    has_refresh_token: bool,
    /// When the OAuth access token expires.
    token_expires_at: Option<DateTime<Utc>>,
    /// The token's scopes, as the platform reported them.
    token_scopes: Vec<String>,
    enabled: bool,
    /// Each platform type has one default config.
    is_default: bool,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

fn mask(secret: Option<&SecretString>) -> Option<&'static str> {
    secret.map(|_| MASK)
}

impl From<PlatformConfig> for PlatformConfigDto {
    fn from(c: PlatformConfig) -> Self {
        PlatformConfigDto {
            access_token: mask(c.access_token.as_ref()),
            app_secret: mask(c.app_secret.as_ref()),
            webhook_secret: mask(c.webhook_secret.as_ref()),
            has_refresh_token: c.refresh_token.is_some(),
            id: c.id,
            name: c.name,
            platform_type: c.platform_type.as_str(),
            base_url: c.base_url,
            auth_type: c.auth_type.as_str(),
            app_id: c.app_id,
            token_expires_at: c.token_expires_at,
            token_scopes: c.token_scopes,
            enabled: c.enabled,
            is_default: c.is_default,
            created_at: c.created_at,
            updated_at: c.updated_at,
        }
    }
}

fn dtos(configs: Vec<PlatformConfig>) -> Vec<PlatformConfigDto> {
    configs.into_iter().map(PlatformConfigDto::from).collect()
}

/// `{"config": {...}}`: one config.
#[derive(Serialize, ToSchema)]
pub struct PlatformConfigEnvelope {
    config: PlatformConfigDto,
}

impl From<PlatformConfig> for PlatformConfigEnvelope {
    fn from(c: PlatformConfig) -> Self {
        PlatformConfigEnvelope { config: c.into() }
    }
}

/// Every config.
#[utoipa::path(responses((status = 200, body = Data<Items<PlatformConfigDto>>)))]
#[get("")]
async fn list_platform_configs(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(Items {
        items: dtos(state.platform_configs.list(None, false).await?),
    }))
}

/// The enabled configs.
#[utoipa::path(responses((status = 200, body = Data<Items<PlatformConfigDto>>)))]
#[get("/enabled")]
async fn list_enabled_platform_configs(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(Items {
        items: dtos(state.platform_configs.list(None, true).await?),
    }))
}

/// `{"configs": [...]}`: the configs of one platform type.
#[derive(Serialize, ToSchema)]
pub struct PlatformConfigsByTypeDto {
    configs: Vec<PlatformConfigDto>,
}

/// The configs of one platform type.
#[utoipa::path(
    params(("platform_type" = inline(PlatformTypeName), Path, description = "`hostA` or `hostB`.")),
    responses((status = 200, body = Data<PlatformConfigsByTypeDto>)),
)]
#[get("/type/{platform_type}")]
async fn list_platform_configs_by_type(
    state: web::Data<AppState>,
    _user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let platform_type: PlatformType = path
        .parse()
        .map_err(|e: String| ApiError::bad_request(ErrorCode::InvalidPath, e))?;
    Ok(envelope::ok(PlatformConfigsByTypeDto {
        configs: dtos(
            state
                .platform_configs
                .list(Some(platform_type), false)
                .await?,
        ),
    }))
}

/// `{"config": {...} | null}`: the default config, if any.
#[derive(Serialize, ToSchema)]
pub struct DefaultPlatformConfigDto {
    config: Option<PlatformConfigDto>,
}

/// The default config (hostA's when both types have one), or `null`.
#[utoipa::path(responses((status = 200, body = Data<DefaultPlatformConfigDto>)))]
#[get("/default")]
async fn get_default_platform_config(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let config = state
        .platform_configs
        .default_config()
        .await?
        .map(PlatformConfigDto::from);
    Ok(envelope::ok(DefaultPlatformConfigDto { config }))
}

/// One config.
#[utoipa::path(responses((status = 200, body = Data<PlatformConfigEnvelope>)))]
#[get("/{id}")]
async fn get_platform_config(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(PlatformConfigEnvelope::from(
        state.platform_configs.get(*id).await?,
    )))
}

/// `{"accessToken": "..."}`: the secret itself.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlatformAccessTokenDto {
    access_token: String,
}

/// The config's access token in clear (admins only; the read is logged).
///
/// 404 when the config has no token.
#[utoipa::path(responses((status = 200, body = Data<PlatformAccessTokenDto>)))]
#[get("/{id}/access-token")]
async fn get_platform_access_token(
    state: web::Data<AppState>,
    admin: RequireAdmin,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let token = state.platform_configs.access_token(*id).await?;
    tracing::info!(user.id = %admin.0.user.id, platform_config.id = %id, "platform_config.access_token_read");
    Ok(envelope::ok(PlatformAccessTokenDto {
        access_token: token.expose().to_owned(),
    }))
}

/// A new config. A `token` config needs `accessToken`, which the platform must accept
/// (on hostA with the `api` scope); an `oauth` config needs `appId` and `appSecret`.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CreatePlatformConfigBody {
    /// Stored trimmed.
    #[validate(length(min = 1, max = 200, message = "must be 1 to 200 characters"))]
    #[schema(
        max_length = 200,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    #[validate(custom(function = "crate::extract::single_line"))]
    name: String,
    #[serde(deserialize_with = "super::serde_helpers::from_text")]
    #[schema(schema_with = platform_type_schema)]
    platform_type: PlatformType,
    /// An `http(s)://` URL; stored trimmed, without trailing slashes.
    #[validate(length(min = 1, max = 2000, message = "is required"))]
    #[schema(schema_with = crate::openapi::base_url)]
    base_url: String,
    /// `token` when absent.
    #[serde(default, deserialize_with = "super::serde_helpers::from_optional_text")]
    #[schema(schema_with = nullable_auth_type_schema)]
    auth_type: Option<AuthType>,
    #[validate(length(max = 4096))]
    #[schema(max_length = 4096)]
    access_token: Option<String>,
    #[validate(length(max = 500))]
    #[schema(max_length = 500)]
    app_id: Option<String>,
    #[validate(length(max = 4096))]
    #[schema(max_length = 4096)]
    app_secret: Option<String>,
    /// The secret the platform sends with each webhook; empty means none.
    #[validate(length(max = 4096))]
    #[schema(max_length = 4096)]
    webhook_secret: Option<String>,
    /// `true` when absent.
    enabled: Option<bool>,
    /// When absent, the first config of a type becomes its default.
    is_default: Option<bool>,
}

/// Not blank once trimmed (the service trims these fields).
const NOT_BLANK: &str = r"^[^\u0000]*[^\u0000\u0009-\u000d\u0020\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\u0000]*$";

/// The body of `create_platform_config`: the fields of [`CreatePlatformConfigBody`], and
/// what each `authType` needs (a token config its `accessToken`, an OAuth one its
/// `appId` and `appSecret`), which the service checks after the fields.
struct CreatePlatformConfigRequest;

impl utoipa::PartialSchema for CreatePlatformConfigRequest {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AllOfBuilder, AnyOfBuilder, SchemaType};
        let not_blank = || {
            ObjectBuilder::new()
                .schema_type(Type::String)
                .pattern(Some(NOT_BLANK))
        };
        let token = ObjectBuilder::new()
            .property(
                "authType",
                ObjectBuilder::new()
                    .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
                    .enum_values(Some([
                        serde_json::Value::from("token"),
                        serde_json::Value::Null,
                    ])),
            )
            .property("accessToken", not_blank())
            .required("accessToken");
        let oauth = ObjectBuilder::new()
            .property("authType", string_enum(["oauth"]))
            .property("appId", not_blank())
            .property("appSecret", not_blank())
            .required("authType")
            .required("appId")
            .required("appSecret");
        AllOfBuilder::new()
            .item(utoipa::openapi::Ref::from_schema_name(
                <CreatePlatformConfigBody as ToSchema>::name(),
            ))
            .item(AnyOfBuilder::new().item(token).item(oauth))
            .into()
    }
}

impl ToSchema for CreatePlatformConfigRequest {
    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        schemas.push((
            <CreatePlatformConfigBody as ToSchema>::name().into(),
            <CreatePlatformConfigBody as utoipa::PartialSchema>::schema(),
        ));
        <CreatePlatformConfigBody as ToSchema>::schemas(schemas);
    }
}

/// Creates a config (`config:create`), after checking its token with the platform.
#[utoipa::path(
    request_body = CreatePlatformConfigRequest,
    responses((status = 200, body = Data<PlatformConfigEnvelope>)),
)]
#[post("")]
async fn create_platform_config(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ConfigCreate>,
    body: ValidatedJson<CreatePlatformConfigBody>,
) -> Result<HttpResponse, ApiError> {
    let b = body.0;
    let config = state
        .platform_configs
        .create(PlatformConfigInput {
            name: b.name,
            platform_type: b.platform_type,
            base_url: b.base_url,
            auth_type: b.auth_type,
            access_token: b.access_token,
            app_id: b.app_id,
            app_secret: b.app_secret,
            webhook_secret: b.webhook_secret,
            enabled: b.enabled,
            is_default: b.is_default,
        })
        .await?;
    Ok(envelope::ok(PlatformConfigEnvelope::from(config)))
}

/// Changes to a config; an absent or `null` field stays as it is. A secret sent back
/// as `***` is kept, an empty one cleared. A new token, URL or auth type is checked
/// with the platform again.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct UpdatePlatformConfigBody {
    #[validate(length(min = 1, max = 200, message = "must be 1 to 200 characters"))]
    #[schema(
        max_length = 200,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    #[validate(custom(function = "crate::extract::single_line"))]
    name: Option<String>,
    /// The platform type cannot change (409 for another one).
    #[serde(default, deserialize_with = "super::serde_helpers::from_optional_text")]
    #[schema(schema_with = nullable_platform_type_schema)]
    platform_type: Option<PlatformType>,
    #[validate(length(min = 1, max = 2000, message = "must not be empty"))]
    #[schema(schema_with = crate::openapi::base_url)]
    base_url: Option<String>,
    #[serde(default, deserialize_with = "super::serde_helpers::from_optional_text")]
    #[schema(schema_with = nullable_auth_type_schema)]
    auth_type: Option<AuthType>,
    #[validate(length(max = 4096))]
    #[schema(max_length = 4096)]
    access_token: Option<String>,
    #[validate(length(max = 500))]
    #[schema(max_length = 500)]
    app_id: Option<String>,
    #[validate(length(max = 4096))]
    #[schema(max_length = 4096)]
    app_secret: Option<String>,
    #[validate(length(max = 4096))]
    #[schema(max_length = 4096)]
    webhook_secret: Option<String>,
    enabled: Option<bool>,
    /// `true` makes it its type's default; `false` on the default is a 409.
    is_default: Option<bool>,
}

/// Updates a config (`config:update`).
#[utoipa::path(
    request_body = UpdatePlatformConfigBody,
    responses((status = 200, body = Data<PlatformConfigEnvelope>)),
)]
#[patch("/{id}")]
async fn update_platform_config(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ConfigUpdate>,
    id: web::Path<Uuid>,
    body: ValidatedJson<UpdatePlatformConfigBody>,
) -> Result<HttpResponse, ApiError> {
    let b = body.0;
    let patch = PlatformConfigPatch {
        name: b.name,
        platform_type: b.platform_type,
        base_url: b.base_url,
        auth_type: b.auth_type,
        access_token: b.access_token,
        app_id: b.app_id,
        app_secret: b.app_secret,
        webhook_secret: b.webhook_secret,
        enabled: b.enabled,
        is_default: b.is_default,
    };
    let config = state.platform_configs.update(*id, patch).await?;
    Ok(envelope::ok(PlatformConfigEnvelope::from(config)))
}

/// Makes a config its platform type's default (`config:update`).
#[utoipa::path(responses((status = 200, body = Data<PlatformConfigEnvelope>)))]
#[post("/{id}/default")]
async fn set_default_platform_config(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ConfigUpdate>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(PlatformConfigEnvelope::from(
        state.platform_configs.set_default(*id).await?,
    )))
}

/// Whether to delete the linked projects too.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct DeletePlatformConfigQuery {
    /// `true` deletes the config's projects with it; without it, a config with linked
    /// projects is not deleted (400 `PROJECTS_LINKED`).
    #[param(value_type = Option<bool>)]
    force: Option<String>,
}

/// `{"success": true, "deletedProjects": n}`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlatformConfigDeletedDto {
    /// How many projects were deleted with the config.
    deleted_projects: u64,
    success: bool,
}

/// Deletes a config (`config:delete`).
#[utoipa::path(
    params(DeletePlatformConfigQuery),
    responses((status = 200, body = Data<PlatformConfigDeletedDto>)),
)]
#[delete("/{id}")]
async fn delete_platform_config(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ConfigDelete>,
    id: web::Path<Uuid>,
    query: web::Query<DeletePlatformConfigQuery>,
) -> Result<HttpResponse, ApiError> {
    let force = match query.force.as_deref() {
        None | Some("false") => false,
        Some("true") => true,
        Some(_) => {
            return Err(ApiError::bad_request(
                ErrorCode::InvalidQuery,
                "force must be true or false",
            )
            .with_details(
                serde_json::json!({ "fields": { "force": ["must be true or false"] } }),
            ));
        }
    };
    let deleted = state.platform_configs.delete(*id, force).await?;
    Ok(envelope::ok(PlatformConfigDeletedDto {
        deleted_projects: deleted,
        success: true,
    }))
}

/// A connection to try; nothing is stored.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TestPlatformConnectionBody {
    #[serde(deserialize_with = "super::serde_helpers::from_text")]
    #[schema(schema_with = platform_type_schema)]
    platform_type: PlatformType,
    /// An `http(s)://` URL.
    #[validate(length(min = 1, max = 2000, message = "is required"))]
    #[schema(schema_with = crate::openapi::base_url)]
    base_url: String,
    /// Required: the token to try.
    #[validate(length(max = 4096))]
    #[schema(value_type = String, max_length = 4096, pattern = r"^[^\u0000]*[^\u0000\u0009-\u000d\u0020\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\u0000]*$")]
    access_token: Option<String>,
    /// `token` when absent.
    #[serde(default, deserialize_with = "super::serde_helpers::from_optional_text")]
    #[schema(schema_with = nullable_auth_type_schema)]
    auth_type: Option<AuthType>,
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
async fn test_platform_connection(
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
        )
        .await?;
    Ok(envelope::ok(PlatformConnectionTestDto::from(report)))
}

/// The search and the page (`pageSize`/`perPage` at most 100).
#[derive(Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
struct HostAUsersQuery {
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
async fn search_host_a_users(
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

/// Starts the OAuth flow of an `oauth` hostA config.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct OAuthAuthUrlBody {
    platform_config_id: Uuid,
    /// Where the platform sends the user back; must be on one of the application URLs.
    #[validate(url(message = "must be a URL"))]
    #[schema(schema_with = uri_schema)]
    redirect_uri: String,
}

/// The platform's authorization URL and its one-time `state`.
#[derive(Serialize, ToSchema)]
pub struct OAuthAuthUrlDto {
    state: Option<String>,
    url: String,
}

/// Starts the OAuth authorization: returns the URL to send the user to.
#[utoipa::path(request_body = OAuthAuthUrlBody, responses((status = 200, body = Data<OAuthAuthUrlDto>)))]
#[post("/oauth/hostA/auth-url")]
async fn start_platform_oauth(
    state: web::Data<AppState>,
    _user: AuthUser,
    body: ValidatedJson<OAuthAuthUrlBody>,
) -> Result<HttpResponse, ApiError> {
    let url = state
        .platform_configs
        .oauth_authorize_url(body.0.platform_config_id, &body.0.redirect_uri)
        .await?;
    let state_param = url::Url::parse(&url).ok().and_then(|u| {
        u.query_pairs()
            .find(|(k, _)| k == "state")
            .map(|(_, v)| v.into_owned())
    });
    Ok(envelope::ok(OAuthAuthUrlDto {
        state: state_param,
        url,
    }))
}

/// The code the platform sent back, with the same redirect URI as the auth-url.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct OAuthCallbackBody {
    platform_config_id: Uuid,
    #[validate(length(min = 1, max = 2000, message = "is required"))]
    #[schema(min_length = 1, max_length = 2000)]
    code: String,
    #[validate(length(min = 1, max = 2000, message = "is required"))]
    #[schema(min_length = 1, max_length = 2000)]
    redirect_uri: String,
    /// The `state` of the auth-url; checked when given.
    state: Option<String>,
}

/// `{"success": true, "config": {...}}`: the config with its new tokens (masked).
#[derive(Serialize, ToSchema)]
pub struct PlatformOAuthResultDto {
    config: PlatformConfigDto,
    success: bool,
}

impl From<PlatformConfig> for PlatformOAuthResultDto {
    fn from(c: PlatformConfig) -> Self {
        PlatformOAuthResultDto {
            config: c.into(),
            success: true,
        }
    }
}

/// Finishes the OAuth authorization: exchanges the code and stores the tokens.
#[utoipa::path(
    request_body = OAuthCallbackBody,
    responses((status = 200, body = Data<PlatformOAuthResultDto>)),
)]
#[post("/oauth/hostA/callback")]
async fn finish_platform_oauth(
    state: web::Data<AppState>,
    _user: AuthUser,
    body: ValidatedJson<OAuthCallbackBody>,
) -> Result<HttpResponse, ApiError> {
    let b = body.0;
    let config = state
        .platform_configs
        .oauth_callback(
            b.platform_config_id,
            &b.code,
            &b.redirect_uri,
            b.state.as_deref(),
        )
        .await?;
    Ok(envelope::ok(PlatformOAuthResultDto::from(config)))
}

/// The config whose OAuth access token to renew.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct OAuthRefreshBody {
    platform_config_id: Uuid,
}

/// Renews the OAuth access token with the stored refresh token.
#[utoipa::path(
    request_body = OAuthRefreshBody,
    responses((status = 200, body = Data<PlatformOAuthResultDto>)),
)]
#[post("/oauth/hostA/refresh")]
async fn refresh_platform_oauth(
    state: web::Data<AppState>,
    _user: AuthUser,
    body: ValidatedJson<OAuthRefreshBody>,
) -> Result<HttpResponse, ApiError> {
    let config = state
        .platform_configs
        .oauth_refresh(body.0.platform_config_id)
        .await?;
    Ok(envelope::ok(PlatformOAuthResultDto::from(config)))
}
