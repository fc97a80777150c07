//! The AI configurations: the stored ones, and the built-in one of the `PROVIDERA_*`
//! variables with at most `AI_REVIEW_CONCURRENCY` calls in flight.

use super::infra::Infra;
use crate::config::Config;
use reviewd_adapters::ai::{AiProviderPool, LimitedAi, UnconfiguredAi};
use reviewd_ai_openai::OpenAiProvider;
use reviewd_domain::model::ai_config::{BUILTIN_NAME, DEFAULT_MODEL};
use reviewd_domain::model::{AiPrices, BuiltinAi};
use reviewd_domain::ports::AiProvider;
use reviewd_domain::services::AiConfigService;
use reviewd_store_postgres::PgAiConfigRepository;
use std::sync::Arc;

pub(super) fn ai_configs(config: &Config, infra: &Infra) -> Arc<AiConfigService> {
    let concurrency = usize::try_from(config.ai_review_concurrency).unwrap_or(1);
    let provider = &config.provider_a;
    let builtin: Arc<dyn AiProvider> = match &provider.endpoint {
        Some(endpoint) => Arc::new(LimitedAi::new(
            Arc::new(OpenAiProvider::new(
                infra.http.clone(),
                BUILTIN_NAME,
                endpoint,
                provider.api_key.clone(),
            )),
            concurrency,
        )),
        None => {
            tracing::warn!(
                "PROVIDERA_ENDPOINT is not set: reviews of projects without a stored AI configuration will fail until one is set"
            );
            Arc::new(UnconfiguredAi)
        }
    };
    Arc::new(AiConfigService::new(
        Arc::new(
            PgAiConfigRepository::new(infra.pool.clone(), infra.secrets.clone())
                .with_cache(infra.cache.clone()),
        ),
        Arc::new(AiProviderPool::new(builtin, infra.http.policy())),
        BuiltinAi {
            endpoint: provider.endpoint.clone(),
            api_key: provider.api_key.clone(),
            model: provider
                .model
                .clone()
                .unwrap_or_else(|| DEFAULT_MODEL.to_owned()),
            max_concurrency: concurrency,
            prices: AiPrices {
                input_per_mtok: provider.input_price_per_mtok,
                output_per_mtok: provider.output_price_per_mtok,
            },
        },
    ))
}
