//! `/api/ai-configs`: the stored AI configurations (OpenAI-compatible endpoints),
//! which one is the default, and trying settings before storing them. The DTOs and
//! the routing are here; the handlers are grouped by what they do.

mod read;
mod trial;
mod write;

use super::dto::{masked_secret_schema, nullable_string_enum};
use chrono::{DateTime, Utc};
use read::{get_ai_config, list_ai_configs};
use reviewd_domain::model::{AiConfig, AiProviderKind, MASK};
use serde::Serialize;
use trial::test_ai_config;
use utoipa::ToSchema;
use utoipa_actix_web::{scope, service_config::ServiceConfig};
use uuid::Uuid;
use write::{create_ai_config, delete_ai_config, set_default_ai_config, update_ai_config};

pub fn configure(cfg: &mut ServiceConfig) {
    // `/test` before `/{id}`, which would take it for an id.
    cfg.service(
        scope("/ai-configs")
            .service(list_ai_configs)
            .service(create_ai_config)
            .service(test_ai_config)
            .service(get_ai_config)
            .service(update_ai_config)
            .service(delete_ai_config)
            .service(set_default_ai_config),
    );
}

/// `openai-compatible`: an OpenAI Chat Completions API (OpenAI, vLLM, Ollama, LiteLLM...).
fn provider_schema() -> utoipa::openapi::Object {
    crate::field_schemas::string_enum(AiProviderKind::ALL.iter().map(|k| k.as_str()))
}

/// A provider, or `null` (absent: `openai-compatible`, or unchanged on update).
fn nullable_provider_schema() -> utoipa::openapi::Object {
    nullable_string_enum(AiProviderKind::ALL.iter().map(|k| k.as_str()))
}

/// A configuration as every response shows it: the key replaced by `***`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AiConfigDto {
    id: Uuid,
    name: String,
    #[schema(schema_with = provider_schema)]
    provider: &'static str,
    /// The API base (e.g. `https://api.openai.com/v1`), without trailing slash.
    endpoint: String,
    #[schema(schema_with = masked_secret_schema)]
    api_key: Option<&'static str>,
    model: String,
    /// Calls one server replica sends to it at once.
    #[schema(minimum = 1, maximum = 64)]
    max_concurrency: u32,
    /// Seconds one HTTP attempt may take.
    #[schema(minimum = 1, maximum = 3600)]
    timeout_secs: u32,
    /// US dollars per million prompt tokens, when known.
    #[serde(rename = "inputPricePerMTok")]
    #[schema(minimum = 0)]
    input_price_per_mtok: Option<f64>,
    /// US dollars per million completion tokens, when known.
    #[serde(rename = "outputPricePerMTok")]
    #[schema(minimum = 0)]
    output_price_per_mtok: Option<f64>,
    /// What projects without an `aiConfigId` use; with none, the `PROVIDERA_*`
    /// configuration.
    is_default: bool,
    /// Configurations tried in this order when a call to this one fails.
    fallback_ids: Vec<Uuid>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

impl From<AiConfig> for AiConfigDto {
    fn from(c: AiConfig) -> Self {
        AiConfigDto {
            api_key: c.api_key.as_ref().map(|_| MASK),
            id: c.id,
            name: c.name,
            provider: c.provider.as_str(),
            endpoint: c.endpoint,
            model: c.model,
            max_concurrency: c.max_concurrency,
            timeout_secs: c.timeout_secs,
            input_price_per_mtok: c.input_price_per_mtok,
            output_price_per_mtok: c.output_price_per_mtok,
            is_default: c.is_default,
            fallback_ids: c.fallback_ids,
            created_at: c.created_at,
            updated_at: c.updated_at,
        }
    }
}

/// `{"config": {...}}`: one configuration.
#[derive(Serialize, ToSchema)]
pub struct AiConfigEnvelope {
    config: AiConfigDto,
}

impl From<AiConfig> for AiConfigEnvelope {
    fn from(c: AiConfig) -> Self {
        AiConfigEnvelope { config: c.into() }
    }
}
