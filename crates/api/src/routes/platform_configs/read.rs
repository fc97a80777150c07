//! Reading configs: lists, the default of a type, one config and its token.

use super::{PlatformConfigDto, PlatformConfigEnvelope, PlatformTypeName, dtos};
use crate::envelope::{self, Data, Items};
use crate::error::ApiError;
use crate::extract::{AuthUser, RequireAdmin};
use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::PlatformType;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// Every config.
#[utoipa::path(responses((status = 200, body = Data<Items<PlatformConfigDto>>)))]
#[get("")]
pub(super) async fn list_platform_configs(
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
pub(super) async fn list_enabled_platform_configs(
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
pub(super) async fn list_platform_configs_by_type(
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
pub(super) async fn get_default_platform_config(
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
pub(super) async fn get_platform_config(
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
pub(super) async fn get_platform_access_token(
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
