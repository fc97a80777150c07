//! Reading configurations: the list (with the built-in one beside it) and one.

use super::{AiConfigDto, AiConfigEnvelope};
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::AuthUser;
use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use reviewd_domain::model::ai_config::BUILTIN_NAME;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// The configuration of the `PROVIDERA_*` variables (no key shown).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BuiltinAiDto {
    /// `providerA`.
    name: &'static str,
    /// `PROVIDERA_ENDPOINT`; null when unset (reviews using it then fail).
    endpoint: Option<String>,
    /// `PROVIDERA_MODEL`, `gpt-4o-mini` when unset.
    model: String,
    /// Whether it is what projects without an `aiConfigId` use (no stored default).
    is_default: bool,
}

/// `{"items": [...], "builtin": {...}}`.
#[derive(Serialize, ToSchema)]
pub struct AiConfigListDto {
    /// In creation order.
    items: Vec<AiConfigDto>,
    builtin: BuiltinAiDto,
}

/// Every stored configuration, and the built-in one.
#[utoipa::path(responses((status = 200, body = Data<AiConfigListDto>)))]
#[get("")]
pub(super) async fn list_ai_configs(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let configs = state.ai_configs.list().await?;
    let builtin = state.ai_configs.builtin();
    let builtin = BuiltinAiDto {
        name: BUILTIN_NAME,
        endpoint: builtin.endpoint.clone(),
        model: builtin.model.clone(),
        is_default: !configs.iter().any(|c| c.is_default),
    };
    Ok(envelope::ok(AiConfigListDto {
        items: configs.into_iter().map(AiConfigDto::from).collect(),
        builtin,
    }))
}

/// One configuration.
#[utoipa::path(responses((status = 200, body = Data<AiConfigEnvelope>)))]
#[get("/{id}")]
pub(super) async fn get_ai_config(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(AiConfigEnvelope::from(
        state.ai_configs.get(*id).await?,
    )))
}
