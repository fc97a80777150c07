//! The OAuth2 flow of a hostA config.

use super::{PlatformConfigDto, uri_schema};
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::{AuthUser, ValidatedJson};
use crate::state::AppState;
use actix_web::{HttpResponse, post, web};
use reviewd_domain::model::PlatformConfig;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;
use validator::Validate;

/// Starts the OAuth flow of an `oauth` hostA config.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct OAuthAuthUrlBody {
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
pub(super) async fn start_platform_oauth(
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
pub(super) struct OAuthCallbackBody {
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
pub(super) async fn finish_platform_oauth(
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
pub(super) struct OAuthRefreshBody {
    platform_config_id: Uuid,
}

/// Renews the OAuth access token with the stored refresh token.
#[utoipa::path(
    request_body = OAuthRefreshBody,
    responses((status = 200, body = Data<PlatformOAuthResultDto>)),
)]
#[post("/oauth/hostA/refresh")]
pub(super) async fn refresh_platform_oauth(
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
