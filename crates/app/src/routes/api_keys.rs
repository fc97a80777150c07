//! `GET/POST /api/api-keys`, `DELETE /api/api-keys/:id`: the caller's own keys.

use crate::envelope;
use crate::error::ApiError;
use crate::extract::{AuthUser, PageParams, ValidatedJson};
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use chrono::{DateTime, Utc};
use reviewd_domain::model::ApiKey;
use serde::{Deserialize, Serialize};
use serde_json::json;
use uuid::Uuid;
use validator::Validate;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/api-keys")
            .route("", web::get().to(list_api_keys))
            .route("", web::post().to(create_api_key))
            .route("/{id}", web::delete().to(revoke_api_key)),
    );
}

/// A key as listed: never the key itself, only its first characters.
#[derive(Serialize)]
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

#[derive(Deserialize, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CreateApiKeyBody {
    #[validate(length(min = 1, max = 100, message = "must be 1 to 100 characters"))]
    name: String,
    expires_at: Option<DateTime<Utc>>,
}

/// 201 with the key in `data.apiKey.key`; it is not retrievable afterwards.
async fn create_api_key(
    state: web::Data<AppState>,
    AuthUser(principal): AuthUser,
    body: ValidatedJson<CreateApiKeyBody>,
) -> Result<HttpResponse, ApiError> {
    let created = state
        .api_keys
        .create(&principal, &body.0.name, body.0.expires_at)
        .await?;
    let mut dto = serde_json::to_value(ApiKeyDto::from(created.key)).map_err(ApiError::internal)?;
    dto["key"] = json!(created.secret);
    Ok(envelope::created(json!({ "apiKey": dto })))
}

async fn revoke_api_key(
    state: web::Data<AppState>,
    AuthUser(principal): AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    state.api_keys.revoke(&principal, id.into_inner()).await?;
    Ok(envelope::ok(json!({ "success": true })))
}
