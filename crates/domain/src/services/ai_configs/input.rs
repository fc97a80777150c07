//! Checking what an admin submits: every bad field is named at once, and values come
//! out trimmed and normalised as they are stored.

use super::super::platform_configs::{normalize_url, secret_change};
use super::super::{FieldError, ServiceError};
use crate::model::ai_config::{
    DEFAULT_MAX_CONCURRENCY, DEFAULT_TIMEOUT_SECS, MAX_CONCURRENCY, MAX_TIMEOUT_SECS,
};
use crate::model::{
    AiConfig, AiConfigChanges, AiPrices, AiProviderKind, AiSource, AiTarget, MASK, NewAiConfig,
    SecretString,
};
use std::time::Duration;
use uuid::Uuid;

/// A new configuration as submitted (the key in clear, as typed).
#[derive(Debug, Clone, Default)]
pub struct AiConfigInput {
    pub name: String,
    /// `openai-compatible` when absent.
    pub provider: Option<AiProviderKind>,
    pub endpoint: String,
    /// Optional: local servers take none.
    pub api_key: Option<String>,
    pub model: String,
    /// 1..=64, 3 when absent.
    pub max_concurrency: Option<i64>,
    /// 1..=3600, 120 when absent.
    pub timeout_secs: Option<i64>,
    pub input_price_per_mtok: Option<f64>,
    pub output_price_per_mtok: Option<f64>,
    /// A new configuration is the default only when this says so.
    pub is_default: Option<bool>,
    /// Stored configurations to fall back on, in order (none when absent).
    pub fallback_ids: Option<Vec<Uuid>>,
}

/// A partial update: `None` keeps a field. The key sent back as `***` (what
/// responses show) is kept, an empty one cleared; a price `Some(None)` is cleared.
#[derive(Debug, Clone, Default)]
pub struct AiConfigPatch {
    pub name: Option<String>,
    pub provider: Option<AiProviderKind>,
    pub endpoint: Option<String>,
    pub api_key: Option<String>,
    pub model: Option<String>,
    pub max_concurrency: Option<i64>,
    pub timeout_secs: Option<i64>,
    pub input_price_per_mtok: Option<Option<f64>>,
    pub output_price_per_mtok: Option<Option<f64>>,
    /// `true` makes it the default; `false` on the default leaves no stored default
    /// (the `PROVIDERA_*` configuration applies again).
    pub is_default: Option<bool>,
    /// Replaces the fallbacks; `[]` removes them.
    pub fallback_ids: Option<Vec<Uuid>>,
}

/// Settings to try (`POST /api/ai-configs/test`); nothing is stored. With `id`, a
/// stored configuration supplies what is left out, and its key stands behind `***`.
#[derive(Debug, Clone, Default)]
pub struct AiTrial {
    pub id: Option<Uuid>,
    pub provider: Option<AiProviderKind>,
    /// Absent: the stored configuration's (`id`), else the default one's.
    pub endpoint: Option<String>,
    pub api_key: Option<String>,
    pub model: Option<String>,
    pub timeout_secs: Option<i64>,
}

/// Collects the field errors of one submission.
#[derive(Default)]
struct Problems(Vec<FieldError>);

impl Problems {
    fn text(&mut self, field: &str, value: &str) -> String {
        let trimmed = value.trim();
        if trimmed.is_empty() {
            self.0.push(FieldError::new(field, "must not be empty"));
        }
        trimmed.to_owned()
    }

    fn url(&mut self, field: &str, value: &str) -> String {
        match normalize_url(value.trim(), field) {
            Ok(url) if !names_a_host(&url) => {
                self.0.push(FieldError::new(
                    field,
                    "must name a host: letters, digits, dots and hyphens, or an IP address",
                ));
                String::new()
            }
            Ok(url) => url,
            Err(ServiceError::Invalid(mut errors)) => {
                self.0.append(&mut errors);
                String::new()
            }
            Err(other) => {
                self.0.push(FieldError::new(field, other.to_string()));
                String::new()
            }
        }
    }

    fn range(&mut self, field: &str, value: i64, max: u32) -> u32 {
        match u32::try_from(value) {
            Ok(v) if (1..=max).contains(&v) => v,
            _ => {
                self.0
                    .push(FieldError::new(field, format!("must be from 1 to {max}")));
                1
            }
        }
    }

    fn price(&mut self, field: &str, value: Option<f64>) -> Option<f64> {
        if value.is_some_and(|p| !p.is_finite() || p < 0.0) {
            self.0.push(FieldError::new(
                field,
                "must be a number of US dollars per million tokens, 0 or more",
            ));
        }
        value
    }

    fn finish<T>(self, value: T) -> Result<T, ServiceError> {
        if self.0.is_empty() {
            Ok(value)
        } else {
            Err(ServiceError::Invalid(self.0))
        }
    }
}

/// Whether the URL's host is one a resolver can look up (the URL parser lets through
/// names such as `example.com*`, which nothing could ever answer for).
fn names_a_host(url: &str) -> bool {
    match crate::http_url::parse(url, &["https", "http"]).map(|u| u.host().map(|h| h.to_owned())) {
        Ok(Some(url::Host::Domain(name))) => name.split('.').all(|label| {
            !label.is_empty()
                && label
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        }),
        Ok(Some(_)) => true,
        _ => false,
    }
}

/// A key typed on creation: trimmed, none when empty. The mask stands for a stored
/// key, and a new configuration has none.
fn new_key(problems: &mut Problems, key: Option<String>) -> Option<SecretString> {
    let key = key.map(|k| k.trim().to_owned()).filter(|k| !k.is_empty())?;
    if key == MASK {
        problems.0.push(FieldError::new(
            "apiKey",
            "`***` stands for a stored key: send the key itself, or leave it out",
        ));
        return None;
    }
    Some(SecretString::new(key))
}

impl AiConfigInput {
    /// The record to store, or every bad field.
    ///
    /// # Errors
    /// `Invalid` naming each bad field.
    pub(super) fn validate(self) -> Result<NewAiConfig, ServiceError> {
        let mut p = Problems::default();
        let config = NewAiConfig {
            name: p.text("name", &self.name),
            provider: self.provider.unwrap_or(AiProviderKind::OpenAiCompatible),
            endpoint: p.url("endpoint", &self.endpoint),
            api_key: new_key(&mut p, self.api_key),
            model: p.text("model", &self.model),
            max_concurrency: self.max_concurrency.map_or(DEFAULT_MAX_CONCURRENCY, |v| {
                p.range("maxConcurrency", v, MAX_CONCURRENCY)
            }),
            timeout_secs: self.timeout_secs.map_or(DEFAULT_TIMEOUT_SECS, |v| {
                p.range("timeoutSecs", v, MAX_TIMEOUT_SECS)
            }),
            input_price_per_mtok: p.price("inputPricePerMTok", self.input_price_per_mtok),
            output_price_per_mtok: p.price("outputPricePerMTok", self.output_price_per_mtok),
            is_default: self.is_default.unwrap_or(false),
            fallback_ids: self.fallback_ids.unwrap_or_default(),
        };
        p.finish(config)
    }
}

impl AiConfigPatch {
    /// The changes to store, or every bad field.
    ///
    /// # Errors
    /// `Invalid` naming each bad field.
    pub(super) fn validate(self) -> Result<AiConfigChanges, ServiceError> {
        let mut p = Problems::default();
        let changes = AiConfigChanges {
            name: self.name.map(|n| p.text("name", &n)),
            provider: self.provider,
            endpoint: self.endpoint.map(|e| p.url("endpoint", &e)),
            api_key: secret_change(self.api_key),
            model: self.model.map(|m| p.text("model", &m)),
            max_concurrency: self
                .max_concurrency
                .map(|v| p.range("maxConcurrency", v, MAX_CONCURRENCY)),
            timeout_secs: self
                .timeout_secs
                .map(|v| p.range("timeoutSecs", v, MAX_TIMEOUT_SECS)),
            input_price_per_mtok: self
                .input_price_per_mtok
                .map(|v| p.price("inputPricePerMTok", v)),
            output_price_per_mtok: self
                .output_price_per_mtok
                .map(|v| p.price("outputPricePerMTok", v)),
            fallback_ids: self.fallback_ids,
        };
        p.finish(changes)
    }
}

impl AiTrial {
    /// The target to try: these settings over `stored`'s.
    ///
    /// # Errors
    /// `Invalid` naming each bad field (an `endpoint` missing without `id`).
    pub(super) fn target(self, stored: Option<&AiConfig>) -> Result<AiTarget, ServiceError> {
        let mut p = Problems::default();
        let endpoint = match (self.endpoint, stored) {
            (Some(e), _) => p.url("endpoint", &e),
            (None, Some(s)) => s.endpoint.clone(),
            (None, None) => {
                p.0.push(FieldError::new("endpoint", "is required"));
                String::new()
            }
        };
        // The stored key goes only to the endpoint it was saved for: whoever may
        // run a trial must not be able to send it to a server of their own.
        let moved = stored.is_some_and(|s| !endpoint.is_empty() && s.endpoint != endpoint);
        let stored_key = stored.and_then(|s| s.api_key.clone());
        let api_key = match secret_change(self.api_key) {
            None if moved && stored_key.is_some() => {
                p.0.push(FieldError::new(
                    "apiKey",
                    "is required to try another endpoint than the stored one (the stored key \
                     is only sent to its own endpoint)",
                ));
                None
            }
            None => stored_key,
            Some(key) => key,
        };
        let model = match (self.model, stored) {
            (Some(m), _) => p.text("model", &m),
            (None, Some(s)) => s.model.clone(),
            (None, None) => String::new(),
        };
        let timeout_secs = match (self.timeout_secs, stored) {
            (Some(v), _) => p.range("timeoutSecs", v, MAX_TIMEOUT_SECS),
            (None, Some(s)) => s.timeout_secs,
            (None, None) => DEFAULT_TIMEOUT_SECS,
        };
        let target = AiTarget {
            source: AiSource::Trial,
            name: stored.map_or_else(|| "test".to_owned(), |s| s.name.clone()),
            endpoint: Some(endpoint),
            api_key,
            model,
            max_concurrency: 1,
            timeout: Some(Duration::from_secs(u64::from(timeout_secs))),
            is_default: false,
            // A trial is one health check: nothing it costs is logged.
            prices: AiPrices::default(),
        };
        p.finish(target)
    }
}
