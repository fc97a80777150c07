//! `/api/platform-configs`: connections to hostA/hostB instances. Secrets are shown
//! as `***` in every response except the admin-only access-token endpoint.

use crate::envelope;
use crate::error::ApiError;
use crate::extract::{AuthUser, PageParams, RequireAdmin, RequirePermission, ValidatedJson, perm};
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use chrono::{DateTime, Utc};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::{AuthType, MASK, PlatformConfig, PlatformType, SecretString};
use reviewd_domain::services::{PlatformConfigInput, PlatformConfigPatch};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa_actix_web::{scope, service_config::ServiceConfig};
use uuid::Uuid;
use validator::Validate;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(scope(
        web::scope("/platform-configs")
            .route("", web::get().to(list_configs))
            .route("", web::post().to(create_config))
            .route("/enabled", web::get().to(list_enabled))
            .route("/default", web::get().to(get_default))
            .route("/test-connection", web::post().to(test_connection))
            .route("/type/{platform_type}", web::get().to(list_by_type))
            .route("/oauth/hostA/auth-url", web::post().to(oauth_auth_url))
            .route("/oauth/hostA/callback", web::post().to(oauth_callback))
            .route("/oauth/hostA/refresh", web::post().to(oauth_refresh))
            .route("/{id}", web::get().to(get_config))
            .route("/{id}", web::patch().to(update_config))
            .route("/{id}", web::delete().to(delete_config))
            .route("/{id}/default", web::post().to(set_default))
            .route("/{id}/access-token", web::get().to(access_token))
            .route("/{id}/hostA/users", web::get().to(search_users)),
    ));
}

/// A config as every response shows it: secrets replaced by `***` (or null when unset).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigDto {
    id: Uuid,
    name: String,
    platform_type: PlatformType,
    base_url: String,
    auth_type: AuthType,
    access_token: Option<&'static str>,
    app_id: Option<String>,
    app_secret: Option<&'static str>,
    webhook_secret: Option<&'static str>,
    has_refresh_token: bool,
    token_expires_at: Option<DateTime<Utc>>,
    token_scopes: Vec<String>,
    enabled: bool,
    is_default: bool,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

fn mask(secret: Option<&SecretString>) -> Option<&'static str> {
    secret.map(|_| MASK)
}

impl From<PlatformConfig> for ConfigDto {
    fn from(c: PlatformConfig) -> Self {
        ConfigDto {
            access_token: mask(c.access_token.as_ref()),
            app_secret: mask(c.app_secret.as_ref()),
            webhook_secret: mask(c.webhook_secret.as_ref()),
            has_refresh_token: c.refresh_token.is_some(),
            id: c.id,
            name: c.name,
            platform_type: c.platform_type,
            base_url: c.base_url,
            auth_type: c.auth_type,
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

fn dtos(configs: Vec<PlatformConfig>) -> Vec<ConfigDto> {
    configs.into_iter().map(ConfigDto::from).collect()
}

async fn list_configs(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(
        json!({ "items": dtos(state.platform_configs.list(None, false).await?) }),
    ))
}

async fn list_enabled(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(
        json!({ "items": dtos(state.platform_configs.list(None, true).await?) }),
    ))
}

async fn list_by_type(
    state: web::Data<AppState>,
    _user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let platform_type: PlatformType = path
        .parse()
        .map_err(|e: String| ApiError::bad_request(ErrorCode::InvalidPath, e))?;
    Ok(envelope::ok(
        json!({ "configs": dtos(state.platform_configs.list(Some(platform_type), false).await?) }),
    ))
}

async fn get_default(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let config = state
        .platform_configs
        .default_config()
        .await?
        .map(ConfigDto::from);
    Ok(envelope::ok(json!({ "config": config })))
}

async fn get_config(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(
        json!({ "config": ConfigDto::from(state.platform_configs.get(*id).await?) }),
    ))
}

async fn access_token(
    state: web::Data<AppState>,
    admin: RequireAdmin,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let token = state.platform_configs.access_token(*id).await?;
    tracing::info!(user.id = %admin.0.user.id, platform_config.id = %id, "platform_config.access_token_read");
    Ok(envelope::ok(json!({ "accessToken": token.expose() })))
}

#[derive(Deserialize, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CreateBody {
    #[validate(length(min = 1, max = 200, message = "must be 1 to 200 characters"))]
    name: String,
    platform_type: PlatformType,
    #[validate(length(min = 1, max = 2000, message = "is required"))]
    base_url: String,
    auth_type: Option<AuthType>,
    #[validate(length(max = 4096))]
    access_token: Option<String>,
    #[validate(length(max = 500))]
    app_id: Option<String>,
    #[validate(length(max = 4096))]
    app_secret: Option<String>,
    #[validate(length(max = 4096))]
    webhook_secret: Option<String>,
    enabled: Option<bool>,
    is_default: Option<bool>,
}

async fn create_config(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ConfigCreate>,
    body: ValidatedJson<CreateBody>,
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
    Ok(envelope::ok(json!({ "config": ConfigDto::from(config) })))
}

#[derive(Deserialize, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct UpdateBody {
    #[validate(length(min = 1, max = 200, message = "must be 1 to 200 characters"))]
    name: Option<String>,
    platform_type: Option<PlatformType>,
    #[validate(length(min = 1, max = 2000, message = "must not be empty"))]
    base_url: Option<String>,
    auth_type: Option<AuthType>,
    #[validate(length(max = 4096))]
    access_token: Option<String>,
    #[validate(length(max = 500))]
    app_id: Option<String>,
    #[validate(length(max = 4096))]
    app_secret: Option<String>,
    #[validate(length(max = 4096))]
    webhook_secret: Option<String>,
    enabled: Option<bool>,
    is_default: Option<bool>,
}

async fn update_config(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ConfigUpdate>,
    id: web::Path<Uuid>,
    body: ValidatedJson<UpdateBody>,
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
    Ok(envelope::ok(json!({ "config": ConfigDto::from(config) })))
}

async fn set_default(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ConfigUpdate>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(
        json!({ "config": ConfigDto::from(state.platform_configs.set_default(*id).await?) }),
    ))
}

#[derive(Deserialize)]
struct DeleteQuery {
    force: Option<String>,
}

async fn delete_config(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ConfigDelete>,
    id: web::Path<Uuid>,
    query: web::Query<DeleteQuery>,
) -> Result<HttpResponse, ApiError> {
    let force = query.force.as_deref() == Some("true");
    let deleted = state.platform_configs.delete(*id, force).await?;
    Ok(envelope::ok(
        json!({ "success": true, "deletedProjects": deleted }),
    ))
}

#[derive(Deserialize, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TestConnectionBody {
    platform_type: PlatformType,
    #[validate(length(min = 1, max = 2000, message = "is required"))]
    base_url: String,
    #[validate(length(max = 4096))]
    access_token: Option<String>,
    auth_type: Option<AuthType>,
}

async fn test_connection(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ConfigUpdate>,
    body: ValidatedJson<TestConnectionBody>,
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
    let user = report
        .identity
        .as_ref()
        .map(|i| json!({ "id": i.user_id, "username": i.username, "name": i.name }));
    Ok(envelope::ok(json!({
        "success": report.success,
        "message": report.message,
        "details": {
            "user": user,
            "scopes": report.identity.and_then(|i| i.scopes),
            "projectCount": report.project_count,
        },
    })))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UsersQuery {
    search: Option<String>,
    project_id: Option<String>,
    #[serde(flatten)]
    page: PageParams,
}

async fn search_users(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
    query: web::Query<UsersQuery>,
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
    Ok(envelope::ok(json!({
        "users": result.items,
        "pagination": { "page": result.page, "perPage": result.per_page, "total": result.total, "hasNext": result.has_next },
    })))
}

#[derive(Deserialize, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct AuthUrlBody {
    platform_config_id: Uuid,
    #[validate(url(message = "must be a URL"))]
    redirect_uri: String,
}

async fn oauth_auth_url(
    state: web::Data<AppState>,
    _user: AuthUser,
    body: ValidatedJson<AuthUrlBody>,
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
    Ok(envelope::ok(json!({ "url": url, "state": state_param })))
}

#[derive(Deserialize, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CallbackBody {
    platform_config_id: Uuid,
    #[validate(length(min = 1, max = 2000, message = "is required"))]
    code: String,
    #[validate(length(min = 1, max = 2000, message = "is required"))]
    redirect_uri: String,
    state: Option<String>,
}

async fn oauth_callback(
    state: web::Data<AppState>,
    _user: AuthUser,
    body: ValidatedJson<CallbackBody>,
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
    Ok(envelope::ok(
        json!({ "success": true, "config": ConfigDto::from(config) }),
    ))
}

#[derive(Deserialize, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RefreshBody {
    platform_config_id: Uuid,
}

async fn oauth_refresh(
    state: web::Data<AppState>,
    _user: AuthUser,
    body: ValidatedJson<RefreshBody>,
) -> Result<HttpResponse, ApiError> {
    let config = state
        .platform_configs
        .oauth_refresh(body.0.platform_config_id)
        .await?;
    Ok(envelope::ok(
        json!({ "success": true, "config": ConfigDto::from(config) }),
    ))
}
