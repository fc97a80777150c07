//! Creating, changing, electing as default and deleting configs.

use super::{
    PlatformConfigEnvelope, nullable_auth_type_schema, nullable_platform_type_schema,
    platform_type_schema,
};
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::SingleLine;
use crate::extract::{RequirePermission, ValidatedJson, perm};
use crate::field_schemas::string_enum;
use crate::routes::serde_helpers::double_option;
use crate::state::AppState;
use actix_web::{HttpResponse, delete, patch, post, web};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::{AuthType, PlatformType};
use reviewd_domain::services::{PlatformConfigInput, PlatformConfigPatch};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa::openapi::schema::{ObjectBuilder, Type};
use uuid::Uuid;
use validator::Validate;

/// A new config. A `token` config needs `accessToken`, which the platform must accept
/// (on hostA with the `api` scope); an `oauth` config needs `appId` and `appSecret`.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct CreatePlatformConfigBody {
    /// Stored trimmed.
    #[validate(length(min = 1, max = 200, message = "must be 1 to 200 characters"))]
    #[validate(custom(function = "crate::extract::single_line"))]
    name: SingleLine<200>,
    #[serde(deserialize_with = "crate::routes::serde_helpers::from_text")]
    #[schema(schema_with = platform_type_schema)]
    platform_type: PlatformType,
    /// An `http(s)://` URL; stored trimmed, without trailing slashes.
    #[validate(length(min = 1, max = 2000, message = "is required"))]
    #[schema(schema_with = crate::field_schemas::base_url)]
    base_url: String,
    /// `token` when absent.
    #[serde(
        default,
        deserialize_with = "crate::routes::serde_helpers::from_optional_text"
    )]
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
    /// `app` configs (hostB): the GitHub App's private key, PEM as GitHub hands
    /// it out. A secret: responses show `***`.
    #[validate(length(max = 16384))]
    #[schema(max_length = 16384)]
    private_key: Option<String>,
    /// `app` configs: the one installation to use; absent for every installation
    /// of the App.
    #[validate(range(min = 1, message = "must be a positive number"))]
    #[schema(minimum = 1)]
    installation_id: Option<i64>,
}

/// Not blank once trimmed (the service trims these fields).
pub(super) const NOT_BLANK: &str = r"^[^\u0000]*[^\u0000\u0009-\u000d\u0020\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\u0000]*$";

/// The body of `create_platform_config`: the fields of [`CreatePlatformConfigBody`], and
/// what each `authType` needs (a token config its `accessToken`, an OAuth one its
/// `appId` and `appSecret`), which the service checks after the fields.
pub(super) struct CreatePlatformConfigRequest;

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
        let app = ObjectBuilder::new()
            .property("platformType", string_enum(["hostB"]))
            .property("authType", string_enum(["app"]))
            .property(
                "appId",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .pattern(Some("^[1-9][0-9]{0,18}$")),
            )
            .property("privateKey", not_blank())
            .required("platformType")
            .required("authType")
            .required("appId")
            .required("privateKey");
        AllOfBuilder::new()
            .item(utoipa::openapi::Ref::from_schema_name(
                <CreatePlatformConfigBody as ToSchema>::name(),
            ))
            .item(AnyOfBuilder::new().item(token).item(oauth).item(app))
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
pub(super) async fn create_platform_config(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ConfigCreate>,
    body: ValidatedJson<CreatePlatformConfigBody>,
) -> Result<HttpResponse, ApiError> {
    let b = body.0;
    let config = state
        .platform_configs
        .create(PlatformConfigInput {
            name: b.name.into(),
            platform_type: b.platform_type,
            base_url: b.base_url,
            auth_type: b.auth_type,
            access_token: b.access_token,
            app_id: b.app_id,
            app_secret: b.app_secret,
            webhook_secret: b.webhook_secret,
            enabled: b.enabled,
            is_default: b.is_default,
            private_key: b.private_key,
            installation_id: b.installation_id,
        })
        .await?;
    Ok(envelope::ok(PlatformConfigEnvelope::from(config)))
}

/// Changes to a config; an absent or `null` field stays as it is. A secret sent back
/// as `***` is kept, an empty one cleared. A new token, URL or auth type is checked
/// with the platform again.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct UpdatePlatformConfigBody {
    #[validate(length(min = 1, max = 200, message = "must be 1 to 200 characters"))]
    #[validate(custom(function = "crate::extract::single_line"))]
    name: Option<SingleLine<200>>,
    /// The platform type cannot change (409 for another one).
    #[serde(
        default,
        deserialize_with = "crate::routes::serde_helpers::from_optional_text"
    )]
    #[schema(schema_with = nullable_platform_type_schema)]
    platform_type: Option<PlatformType>,
    #[validate(length(min = 1, max = 2000, message = "must not be empty"))]
    #[schema(schema_with = crate::field_schemas::base_url)]
    base_url: Option<String>,
    #[serde(
        default,
        deserialize_with = "crate::routes::serde_helpers::from_optional_text"
    )]
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
    /// `app` configs: a new private key (PEM); `***` keeps the stored one.
    #[validate(length(max = 16384))]
    #[schema(max_length = 16384)]
    private_key: Option<String>,
    /// `app` configs: one installation; `null` for every installation.
    #[serde(default, deserialize_with = "double_option")]
    #[validate(range(min = 1, message = "must be a positive number"))]
    #[schema(value_type = Option<i64>, nullable, minimum = 1)]
    installation_id: Option<Option<i64>>,
}

/// Updates a config (`config:update`).
#[utoipa::path(
    request_body = UpdatePlatformConfigBody,
    responses((status = 200, body = Data<PlatformConfigEnvelope>)),
)]
#[patch("/{id}")]
pub(super) async fn update_platform_config(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ConfigUpdate>,
    id: web::Path<Uuid>,
    body: ValidatedJson<UpdatePlatformConfigBody>,
) -> Result<HttpResponse, ApiError> {
    let b = body.0;
    let patch = PlatformConfigPatch {
        name: b.name.map(String::from),
        platform_type: b.platform_type,
        base_url: b.base_url,
        auth_type: b.auth_type,
        access_token: b.access_token,
        app_id: b.app_id,
        app_secret: b.app_secret,
        webhook_secret: b.webhook_secret,
        enabled: b.enabled,
        is_default: b.is_default,
        private_key: b.private_key,
        installation_id: b.installation_id,
    };
    let config = state.platform_configs.update(*id, patch).await?;
    Ok(envelope::ok(PlatformConfigEnvelope::from(config)))
}

/// Makes a config its platform type's default (`config:update`).
#[utoipa::path(responses((status = 200, body = Data<PlatformConfigEnvelope>)))]
#[post("/{id}/default")]
pub(super) async fn set_default_platform_config(
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
pub(super) struct DeletePlatformConfigQuery {
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
pub(super) async fn delete_platform_config(
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
