//! AI configurations: the OpenAI-compatible endpoints an admin stores
//! (`/api/ai-configs`), the built-in one the `PROVIDERA_*` variables describe, and
//! [`AiTarget`], what one review is sent to.

use super::cost::AiPrices;
use super::secret::SecretString;
use chrono::{DateTime, Utc};
use std::fmt;
use std::str::FromStr;
use std::time::Duration;
use uuid::Uuid;

/// The model of the built-in configuration when `PROVIDERA_MODEL` is unset.
pub const DEFAULT_MODEL: &str = "gpt-4o-mini";
/// The name of the built-in configuration (reviews' `aiProvider`, its health check).
pub const BUILTIN_NAME: &str = "providerA";
/// Calls one replica sends to a stored configuration at once, unless it says.
pub const DEFAULT_MAX_CONCURRENCY: u32 = 3;
/// The most calls one replica may send to a configuration at once.
pub const MAX_CONCURRENCY: u32 = 64;
/// How long one HTTP attempt to a stored configuration may take, unless it says.
pub const DEFAULT_TIMEOUT_SECS: u32 = 120;
/// The longest HTTP attempt a configuration may allow (an hour).
pub const MAX_TIMEOUT_SECS: u32 = 3_600;
/// The most fallbacks a configuration may list.
pub const MAX_FALLBACKS: usize = 3;

/// The API a configuration speaks. Today only OpenAI's Chat Completions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AiProviderKind {
    /// `POST {endpoint}/chat/completions` with a bearer key (OpenAI, vLLM, Ollama,
    /// LiteLLM and the like).
    OpenAiCompatible,
}

impl AiProviderKind {
    pub const ALL: [AiProviderKind; 1] = [AiProviderKind::OpenAiCompatible];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            AiProviderKind::OpenAiCompatible => "openai-compatible",
        }
    }
}

impl fmt::Display for AiProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for AiProviderKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        AiProviderKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| format!("unknown AI provider `{s}` (expected openai-compatible)"))
    }
}

/// A stored AI configuration. The key is decrypted in memory only; responses show
/// it as `***`.
#[derive(Debug, Clone, PartialEq)]
pub struct AiConfig {
    pub id: Uuid,
    pub name: String,
    pub provider: AiProviderKind,
    /// The API base, e.g. `https://api.openai.com/v1`, without trailing slash.
    pub endpoint: String,
    /// `None` for servers that take no key (a local vLLM or Ollama).
    pub api_key: Option<SecretString>,
    pub model: String,
    /// Calls in flight at once from one replica (1..=64).
    pub max_concurrency: u32,
    /// How long one HTTP attempt may take (1..=3600 s).
    pub timeout_secs: u32,
    /// USD per million prompt tokens, when known.
    pub input_price_per_mtok: Option<f64>,
    /// USD per million completion tokens, when known.
    pub output_price_per_mtok: Option<f64>,
    /// The one configuration projects without their own use.
    pub is_default: bool,
    /// Configurations tried in this order when a call to this one fails (the
    /// provider down, rate limiting past its retries, the model withdrawn).
    pub fallback_ids: Vec<Uuid>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A configuration to insert.
#[derive(Debug, Clone, PartialEq)]
pub struct NewAiConfig {
    pub name: String,
    pub provider: AiProviderKind,
    pub endpoint: String,
    pub api_key: Option<SecretString>,
    pub model: String,
    pub max_concurrency: u32,
    pub timeout_secs: u32,
    pub input_price_per_mtok: Option<f64>,
    pub output_price_per_mtok: Option<f64>,
    pub is_default: bool,
    pub fallback_ids: Vec<Uuid>,
}

/// Changes to a configuration; `None` keeps the stored value, and for nullable
/// fields `Some(None)` clears it. The default is moved by its own calls.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AiConfigChanges {
    pub name: Option<String>,
    pub provider: Option<AiProviderKind>,
    pub endpoint: Option<String>,
    pub api_key: Option<Option<SecretString>>,
    pub model: Option<String>,
    pub max_concurrency: Option<u32>,
    pub timeout_secs: Option<u32>,
    pub input_price_per_mtok: Option<Option<f64>>,
    pub output_price_per_mtok: Option<Option<f64>>,
    /// Replaces the list.
    pub fallback_ids: Option<Vec<Uuid>>,
}

/// Where a target's settings come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AiSource {
    /// The `PROVIDERA_*` variables.
    Builtin,
    /// A stored configuration, as it was at `updated_at` (a provider built for it
    /// is kept until the record changes).
    Stored { id: Uuid, updated_at: DateTime<Utc> },
    /// Settings being tried (`POST /api/ai-configs/test`): used once, never kept.
    Trial,
}

/// What one review (or one check) is sent to: the resolved configuration.
#[derive(Clone, PartialEq)]
pub struct AiTarget {
    pub source: AiSource,
    /// Reviews' `aiProvider` and the health check's `checkName`.
    pub name: String,
    /// `None` only for the built-in configuration without `PROVIDERA_ENDPOINT`.
    pub endpoint: Option<String>,
    pub api_key: Option<SecretString>,
    pub model: String,
    pub max_concurrency: usize,
    /// One HTTP attempt's limit; `None` keeps the server's outbound policy.
    pub timeout: Option<Duration>,
    /// Whether projects without a configuration of their own use it.
    pub is_default: bool,
    /// What its calls cost (the AI call log's `cost_usd`).
    pub prices: AiPrices,
}

impl AiTarget {
    /// The same settings for one probe (a health check, a test): a stored
    /// configuration is tried once, uncached, each attempt cut at `limit` whatever its
    /// `timeoutSecs` (up to an hour for a slow model), so a check of an unreachable
    /// endpoint answers within `limit`. The built-in one keeps the server's outbound
    /// policy, as its health check always did.
    #[must_use]
    pub fn probe(&self, limit: Duration) -> Self {
        Self {
            source: match self.source {
                AiSource::Builtin => AiSource::Builtin,
                AiSource::Stored { .. } | AiSource::Trial => AiSource::Trial,
            },
            timeout: Some(self.timeout.map_or(limit, |t| t.min(limit))),
            ..self.clone()
        }
    }

    /// The stored configuration's id (`None` for the built-in one or a trial).
    #[must_use]
    pub fn config_id(&self) -> Option<Uuid> {
        match self.source {
            AiSource::Stored { id, .. } => Some(id),
            AiSource::Builtin | AiSource::Trial => None,
        }
    }

    /// The target of a stored configuration.
    #[must_use]
    pub fn stored(config: &AiConfig) -> Self {
        Self {
            source: AiSource::Stored {
                id: config.id,
                updated_at: config.updated_at,
            },
            name: config.name.clone(),
            endpoint: Some(config.endpoint.clone()),
            api_key: config.api_key.clone(),
            model: config.model.clone(),
            max_concurrency: usize::try_from(config.max_concurrency).unwrap_or(1),
            timeout: Some(Duration::from_secs(u64::from(config.timeout_secs))),
            is_default: config.is_default,
            prices: AiPrices {
                input_per_mtok: config.input_price_per_mtok,
                output_per_mtok: config.output_price_per_mtok,
            },
        }
    }
}

/// Never prints the key.
impl fmt::Debug for AiTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AiTarget")
            .field("source", &self.source)
            .field("name", &self.name)
            .field("endpoint", &self.endpoint)
            .field("api_key", &self.api_key.as_ref().map(|_| super::MASK))
            .field("model", &self.model)
            .field("max_concurrency", &self.max_concurrency)
            .field("timeout", &self.timeout)
            .field("is_default", &self.is_default)
            .field("prices", &self.prices)
            .finish()
    }
}

/// The built-in configuration (`PROVIDERA_ENDPOINT`, `PROVIDERA_API_KEY`,
/// `PROVIDERA_MODEL`, `AI_REVIEW_CONCURRENCY`, `PROVIDERA_INPUT_PRICE_PER_MTOK`,
/// `PROVIDERA_OUTPUT_PRICE_PER_MTOK`): used while no stored configuration is the
/// default. Its `Debug` masks the key (`SecretString` does).
#[derive(Debug, Clone, PartialEq)]
pub struct BuiltinAi {
    pub endpoint: Option<String>,
    pub api_key: Option<SecretString>,
    pub model: String,
    pub max_concurrency: usize,
    /// Unknown (no cost recorded) unless both price variables are set.
    pub prices: AiPrices,
}

impl Default for BuiltinAi {
    fn default() -> Self {
        Self {
            endpoint: None,
            api_key: None,
            model: DEFAULT_MODEL.to_owned(),
            max_concurrency: 3,
            prices: AiPrices::default(),
        }
    }
}

impl BuiltinAi {
    /// Its target; `is_default` when no stored configuration is the default.
    #[must_use]
    pub fn target(&self, is_default: bool) -> AiTarget {
        AiTarget {
            source: AiSource::Builtin,
            name: BUILTIN_NAME.to_owned(),
            endpoint: self.endpoint.clone(),
            api_key: self.api_key.clone(),
            model: self.model.clone(),
            max_concurrency: self.max_concurrency.max(1),
            timeout: None,
            is_default,
            prices: self.prices,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(timeout: Option<Duration>) -> AiTarget {
        AiTarget {
            source: AiSource::Stored {
                id: Uuid::nil(),
                updated_at: DateTime::<Utc>::MIN_UTC,
            },
            name: "local".into(),
            endpoint: Some("http://127.0.0.1:9/v1".into()),
            api_key: None,
            model: "m".into(),
            max_concurrency: 3,
            timeout,
            is_default: false,
            prices: AiPrices::default(),
        }
    }

    #[test]
    fn a_probe_is_one_uncached_try_cut_at_its_limit() {
        let limit = Duration::from_secs(5);
        let hour = stored(Some(Duration::from_secs(3600))).probe(limit);
        assert_eq!(hour.source, AiSource::Trial, "never cached, one attempt");
        assert_eq!(hour.timeout, Some(limit));
        let quick = stored(Some(Duration::from_secs(2))).probe(limit);
        assert_eq!(
            quick.timeout,
            Some(Duration::from_secs(2)),
            "a shorter one kept"
        );
        assert_eq!(quick.name, "local");
        let builtin = AiTarget {
            source: AiSource::Builtin,
            ..stored(None)
        };
        assert_eq!(builtin.probe(limit).source, AiSource::Builtin);
    }
}
