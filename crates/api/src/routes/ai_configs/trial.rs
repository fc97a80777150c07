//! Trying settings before (or after) storing them.

use super::nullable_provider_schema;
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::SingleLine;
use crate::extract::{RequirePermission, ValidatedJson, perm};
use crate::state::AppState;
use actix_web::{HttpResponse, post, web};
use reviewd_domain::model::AiProviderKind;
use reviewd_domain::services::{AiTestReport, AiTrial};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;
use validator::Validate;

/// Settings to try; nothing is stored. With `id`, the stored configuration fills in
/// the fields left out, and `apiKey` `***` (or absent) means its stored key. With
/// neither `id` nor `endpoint` (`{}`), the configuration reviews use by default.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct TestAiConfigBody {
    /// A stored configuration to start from.
    id: Option<Uuid>,
    #[serde(
        default,
        deserialize_with = "crate::routes::serde_helpers::from_optional_text"
    )]
    #[schema(schema_with = nullable_provider_schema)]
    provider: Option<AiProviderKind>,
    /// Where to send the check; absent: the stored configuration's (`id`), else
    /// the default configuration's.
    #[validate(length(min = 1, max = 2000, message = "must not be empty"))]
    #[schema(schema_with = crate::field_schemas::base_url)]
    endpoint: Option<String>,
    #[validate(length(max = 4096))]
    #[schema(max_length = 4096)]
    api_key: Option<String>,
    /// Echoed in the report (the check lists the models, it asks none).
    #[validate(length(min = 1, max = 200, message = "must be 1 to 200 characters"))]
    #[validate(custom(function = "crate::extract::single_line"))]
    model: Option<SingleLine<200>>,
    /// Seconds the check may take; 120 (or the stored configuration's) when absent.
    #[schema(minimum = 1, maximum = 3600)]
    timeout_secs: Option<i64>,
}

/// What the provider said.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AiConfigTestDetailsDto {
    /// The model the settings name, if any.
    model: Option<String>,
    /// How long the provider took to answer (or to fail).
    response_time_ms: u64,
}

/// The outcome of a test: a failure is reported here, not as an error.
#[derive(Serialize, ToSchema)]
pub struct AiConfigTestDto {
    /// `true` when `GET {endpoint}/models` answered with the key accepted.
    success: bool,
    message: String,
    details: AiConfigTestDetailsDto,
}

impl From<AiTestReport> for AiConfigTestDto {
    fn from(r: AiTestReport) -> Self {
        AiConfigTestDto {
            success: r.success,
            message: r.message,
            details: AiConfigTestDetailsDto {
                model: r.model,
                response_time_ms: u64::try_from(r.response_time.as_millis()).unwrap_or(u64::MAX),
            },
        }
    }
}

/// Tries settings with one call to `GET {endpoint}/models` (one attempt) and stores
/// nothing (`config:update`). `{}` tries the configuration reviews use by default. Every answer of the provider, a refused key or no
/// answer included, is a 200 with `success: false`; only a malformed body is a 400.
#[utoipa::path(
    request_body = TestAiConfigBody,
    responses((status = 200, body = Data<AiConfigTestDto>)),
)]
#[post("/test")]
pub(super) async fn test_ai_config(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ConfigUpdate>,
    body: ValidatedJson<TestAiConfigBody>,
) -> Result<HttpResponse, ApiError> {
    let b = body.0;
    let report = state
        .ai_configs
        .test(AiTrial {
            id: b.id,
            provider: b.provider,
            endpoint: b.endpoint,
            api_key: b.api_key,
            model: b.model.map(String::from),
            timeout_secs: b.timeout_secs,
        })
        .await?;
    Ok(envelope::ok(AiConfigTestDto::from(report)))
}
