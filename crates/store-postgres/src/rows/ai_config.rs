//! The row of an AI configuration, its key opened on the way out.

use super::secret::open;
use crate::error::corrupt;
use crate::schema::ai_configs;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use reviewd_crypto::SecretBox;
use reviewd_domain::model::AiConfig;
use reviewd_domain::ports::RepoError;
use uuid::Uuid;

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = ai_configs, check_for_backend(diesel::pg::Pg))]
pub(crate) struct AiConfigRow {
    pub id: Uuid,
    pub name: String,
    pub provider: String,
    pub endpoint: String,
    pub model: String,
    pub api_key_enc: Option<String>,
    pub is_default: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub max_concurrency: i32,
    pub timeout_secs: i32,
    pub input_price_per_mtok: Option<f64>,
    pub output_price_per_mtok: Option<f64>,
}

impl AiConfigRow {
    pub(crate) fn into_config(self, secrets: &SecretBox) -> Result<AiConfig, RepoError> {
        // The CHECK constraints keep both within 1..=3600.
        let positive = |v: i32, what: &str| {
            u32::try_from(v).map_err(|_| corrupt(format!("AI config {} {what}: {v}", self.id)))
        };
        Ok(AiConfig {
            provider: self.provider.parse().map_err(|e: String| corrupt(e))?,
            api_key: open(
                secrets,
                self.api_key_enc,
                &format!("AI config {} API key", self.id),
            )?,
            max_concurrency: positive(self.max_concurrency, "max_concurrency")?,
            timeout_secs: positive(self.timeout_secs, "timeout_secs")?,
            id: self.id,
            name: self.name,
            endpoint: self.endpoint,
            model: self.model,
            input_price_per_mtok: self.input_price_per_mtok,
            output_price_per_mtok: self.output_price_per_mtok,
            is_default: self.is_default,
            // Kept in `ai_config_fallbacks`: the repository reads them beside the row.
            fallback_ids: Vec::new(),
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}
