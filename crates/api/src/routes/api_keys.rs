//! `GET/POST /api/api-keys`, `DELETE /api/api-keys/:id`: the caller's own keys.

use crate::envelope::{self, Data, Paginated, Success};
use crate::error::ApiError;
use crate::extract::SingleLine;
use crate::extract::{AuthUser, PageParams, ValidatedJson};
use crate::state::AppState;
use actix_web::{HttpResponse, delete, get, post, web};
use chrono::{DateTime, Utc};
use reviewd_domain::model::ApiKey;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::{scope, service_config::ServiceConfig};
use uuid::Uuid;
use validator::Validate;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        scope("/api-keys")
            .service(list_api_keys)
            .service(create_api_key)
            .service(revoke_api_key),
    );
}

/// A key as listed: never the key itself, only its first characters.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ApiKeyDto {
    id: Uuid,
    name: String,
    prefix: String,
    created_at: DateTime<Utc>,
    expires_at: Option<DateTime<Utc>>,
    last_used_at: Option<DateTime<Utc>>,
    revoked_at: Option<DateTime<Utc>>,
}

impl From<ApiKey> for ApiKeyDto {
    fn from(k: ApiKey) -> Self {
        ApiKeyDto {
            id: k.id,
            name: k.name,
            prefix: k.prefix,
            created_at: k.created_at,
            expires_at: k.expires_at,
            last_used_at: k.last_used_at,
            revoked_at: k.revoked_at,
        }
    }
}

/// The caller's API keys, newest first.
#[utoipa::path(params(PageParams), responses((status = 200, body = Paginated<ApiKeyDto>)))]
#[get("")]
async fn list_api_keys(
    state: web::Data<AppState>,
    AuthUser(principal): AuthUser,
    query: web::Query<PageParams>,
) -> Result<HttpResponse, ApiError> {
    let page = state
        .api_keys
        .list(&principal, query.to_request(20, 100)?)
        .await?;
    Ok(envelope::paginated(page, ApiKeyDto::from))
}

#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CreateApiKeyBody {
    #[validate(length(min = 1, max = 100, message = "must be 1 to 100 characters"))]
    #[validate(custom(function = "crate::extract::single_line"))]
    name: SingleLine<100>,
    expires_at: Option<DateTime<Utc>>,
}

/// A created key, with the key itself: shown this once, only its hash is stored.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct CreatedApiKeyDto {
    #[serde(flatten)]
    listed: ApiKeyDto,
    key: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct CreatedApiKey {
    api_key: CreatedApiKeyDto,
}

/// Creates a key; the answer carries the key in `data.apiKey.key`, never shown again.
#[utoipa::path(request_body = CreateApiKeyBody, responses((status = 201, body = Data<CreatedApiKey>)))]
#[post("")]
async fn create_api_key(
    state: web::Data<AppState>,
    AuthUser(principal): AuthUser,
    body: ValidatedJson<CreateApiKeyBody>,
) -> Result<HttpResponse, ApiError> {
    let created = state
        .api_keys
        .create(&principal, body.0.name.as_str(), body.0.expires_at)
        .await?;
    Ok(envelope::created(CreatedApiKey {
        api_key: CreatedApiKeyDto {
            listed: ApiKeyDto::from(created.key),
            key: created.secret,
        },
    }))
}

/// Revokes one of the caller's keys; it stops working at once.
#[utoipa::path(responses((status = 200, body = Data<Success>)))]
#[delete("/{id}")]
async fn revoke_api_key(
    state: web::Data<AppState>,
    AuthUser(principal): AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    state.api_keys.revoke(&principal, id.into_inner()).await?;
    Ok(envelope::success())
}
