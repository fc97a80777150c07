//! Creating, changing, electing as default and deleting configurations.

use super::{AiConfigEnvelope, nullable_provider_schema};
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::SingleLine;
use crate::extract::{RequirePermission, ValidatedJson, perm};
use crate::routes::serde_helpers::double_option;
use crate::state::AppState;
use actix_web::{HttpResponse, delete, patch, post, web};
use reviewd_domain::model::AiProviderKind;
use reviewd_domain::services::{AiConfigInput, AiConfigPatch};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;
use validator::Validate;

/// A new configuration. Only `name`, `endpoint` and `model` are required.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct CreateAiConfigBody {
    /// Stored trimmed; names the configuration in reviews (`aiProvider`) and checks.
    #[validate(length(min = 1, max = 200, message = "must be 1 to 200 characters"))]
    #[validate(custom(function = "crate::extract::single_line"))]
    name: SingleLine<200>,
    /// `openai-compatible` when absent (the only one today).
    #[serde(
        default,
        deserialize_with = "crate::routes::serde_helpers::from_optional_text"
    )]
    #[schema(schema_with = nullable_provider_schema)]
    provider: Option<AiProviderKind>,
    /// The API base, e.g. `https://api.openai.com/v1` (`/chat/completions` and
    /// `/models` are called under it).
    #[validate(length(min = 1, max = 2000, message = "is required"))]
    #[schema(schema_with = crate::field_schemas::base_url)]
    endpoint: String,
    /// Sent as `Authorization: Bearer`; leave it out for servers that take none.
    /// Encrypted at rest, `***` in every response.
    #[validate(length(max = 4096))]
    #[schema(max_length = 4096)]
    api_key: Option<String>,
    /// The model every review with this configuration asks for.
    #[validate(length(min = 1, max = 200, message = "must be 1 to 200 characters"))]
    #[validate(custom(function = "crate::extract::single_line"))]
    model: SingleLine<200>,
    /// Calls one server replica sends to it at once; 3 when absent.
    #[schema(minimum = 1, maximum = 64)]
    max_concurrency: Option<i64>,
    /// Seconds one HTTP attempt may take; 120 when absent.
    #[schema(minimum = 1, maximum = 3600)]
    timeout_secs: Option<i64>,
    /// US dollars per million prompt tokens.
    #[serde(rename = "inputPricePerMTok")]
    #[schema(minimum = 0)]
    input_price_per_mtok: Option<f64>,
    /// US dollars per million completion tokens.
    #[serde(rename = "outputPricePerMTok")]
    #[schema(minimum = 0)]
    output_price_per_mtok: Option<f64>,
    /// `true` makes it the default in place of the current one; absent or `false`:
    /// not the default.
    is_default: Option<bool>,
    /// Stored configurations tried in this order when a call to this one fails
    /// (5xx, 429 past its retries, a timeout, a model not found): at most 3, each
    /// once. None when absent.
    #[schema(max_items = 3)]
    fallback_ids: Option<Vec<Uuid>>,
}

/// Creates a configuration (`config:create`).
#[utoipa::path(
    request_body = CreateAiConfigBody,
    responses((status = 200, body = Data<AiConfigEnvelope>)),
)]
#[post("")]
pub(super) async fn create_ai_config(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ConfigCreate>,
    body: ValidatedJson<CreateAiConfigBody>,
) -> Result<HttpResponse, ApiError> {
    let b = body.0;
    let config = state
        .ai_configs
        .create(AiConfigInput {
            name: b.name.into(),
            provider: b.provider,
            endpoint: b.endpoint,
            api_key: b.api_key,
            model: b.model.into(),
            max_concurrency: b.max_concurrency,
            timeout_secs: b.timeout_secs,
            input_price_per_mtok: b.input_price_per_mtok,
            output_price_per_mtok: b.output_price_per_mtok,
            is_default: b.is_default,
            fallback_ids: b.fallback_ids,
        })
        .await?;
    Ok(envelope::ok(AiConfigEnvelope::from(config)))
}

/// Changes to a configuration; an absent field stays as it is (`null` too, but for
/// the prices, which it clears). `apiKey` sent back as `***` is kept, an empty one
/// cleared.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct UpdateAiConfigBody {
    #[validate(length(min = 1, max = 200, message = "must be 1 to 200 characters"))]
    #[validate(custom(function = "crate::extract::single_line"))]
    name: Option<SingleLine<200>>,
    #[serde(
        default,
        deserialize_with = "crate::routes::serde_helpers::from_optional_text"
    )]
    #[schema(schema_with = nullable_provider_schema)]
    provider: Option<AiProviderKind>,
    #[validate(length(min = 1, max = 2000, message = "must not be empty"))]
    #[schema(schema_with = crate::field_schemas::base_url)]
    endpoint: Option<String>,
    #[validate(length(max = 4096))]
    #[schema(max_length = 4096)]
    api_key: Option<String>,
    #[validate(length(min = 1, max = 200, message = "must be 1 to 200 characters"))]
    #[validate(custom(function = "crate::extract::single_line"))]
    model: Option<SingleLine<200>>,
    #[schema(minimum = 1, maximum = 64)]
    max_concurrency: Option<i64>,
    #[schema(minimum = 1, maximum = 3600)]
    timeout_secs: Option<i64>,
    /// `null` clears the price.
    #[serde(
        rename = "inputPricePerMTok",
        default,
        deserialize_with = "double_option"
    )]
    #[schema(value_type = Option<f64>, nullable, minimum = 0)]
    input_price_per_mtok: Option<Option<f64>>,
    /// `null` clears the price.
    #[serde(
        rename = "outputPricePerMTok",
        default,
        deserialize_with = "double_option"
    )]
    #[schema(value_type = Option<f64>, nullable, minimum = 0)]
    output_price_per_mtok: Option<Option<f64>>,
    /// `true` makes it the default; `false` on the default leaves no stored default
    /// (projects without an `aiConfigId` use `PROVIDERA_*` again).
    is_default: Option<bool>,
    /// Replaces the fallbacks (`[]` removes them): stored configurations other than
    /// this one, at most 3, each once.
    #[schema(max_items = 3)]
    fallback_ids: Option<Vec<Uuid>>,
}

/// Updates a configuration (`config:update`).
#[utoipa::path(
    request_body = UpdateAiConfigBody,
    responses((status = 200, body = Data<AiConfigEnvelope>)),
)]
#[patch("/{id}")]
pub(super) async fn update_ai_config(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ConfigUpdate>,
    id: web::Path<Uuid>,
    body: ValidatedJson<UpdateAiConfigBody>,
) -> Result<HttpResponse, ApiError> {
    let b = body.0;
    let patch = AiConfigPatch {
        name: b.name.map(String::from),
        provider: b.provider,
        endpoint: b.endpoint,
        api_key: b.api_key,
        model: b.model.map(String::from),
        max_concurrency: b.max_concurrency,
        timeout_secs: b.timeout_secs,
        input_price_per_mtok: b.input_price_per_mtok,
        output_price_per_mtok: b.output_price_per_mtok,
        is_default: b.is_default,
        fallback_ids: b.fallback_ids,
    };
    let config = state.ai_configs.update(*id, patch).await?;
    Ok(envelope::ok(AiConfigEnvelope::from(config)))
}

/// Makes a configuration the default of every project without an `aiConfigId`
/// (`config:update`).
#[utoipa::path(responses((status = 200, body = Data<AiConfigEnvelope>)))]
#[post("/{id}/default")]
pub(super) async fn set_default_ai_config(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ConfigUpdate>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(AiConfigEnvelope::from(
        state.ai_configs.set_default(*id).await?,
    )))
}

/// `{"success": true}`.
#[derive(Serialize, ToSchema)]
pub struct AiConfigDeletedDto {
    success: bool,
}

/// Deletes a configuration no project names (`config:delete`): one a project's
/// `aiConfigId` names is refused with 400 `PROJECTS_LINKED`, naming the projects.
/// Deleting the default leaves none (`PROVIDERA_*` applies).
#[utoipa::path(responses((status = 200, body = Data<AiConfigDeletedDto>)))]
#[delete("/{id}")]
pub(super) async fn delete_ai_config(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ConfigDelete>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    state.ai_configs.delete(*id).await?;
    Ok(envelope::ok(AiConfigDeletedDto { success: true }))
}
