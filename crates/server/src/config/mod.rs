//! Configuration from the environment: every variable of the contract's table with
//! its default. Parsing fails with one line naming the variable; secret values are
//! never echoed.

mod values;

use reviewd_api::settings::EdgeSettings;
pub use reviewd_api::settings::NodeEnv;
pub use reviewd_domain::model::SecretString;
use std::path::PathBuf;
use std::time::Duration;
pub use values::ConfigError;
use values::{
    boolean, bounded, check_url, inactive_ai_variables, number, positive_minutes, price,
    trusted_proxies,
};

/// The `PROVIDERA_*` variables: the global default AI configuration.
#[derive(Debug, Clone)]
pub struct ProviderAConfig {
    pub api_key: Option<SecretString>,
    pub endpoint: Option<String>,
    pub model: Option<String>,
    /// `PROVIDERA_INPUT_PRICE_PER_MTOK` / `PROVIDERA_OUTPUT_PRICE_PER_MTOK`: USD per
    /// million prompt / completion tokens; calls are costed only when both are set.
    pub input_price_per_mtok: Option<f64>,
    pub output_price_per_mtok: Option<f64>,
}

#[derive(Debug, Clone)]
pub struct Config {
    /// Proxies whose forwarded header names the client (`TRUSTED_PROXIES`,
    /// `TRUSTED_PROXY_HEADER`); nobody's by default.
    pub trusted_proxies: reviewd_api::client_addr::TrustedProxies,
    pub database_url: SecretString,
    pub queue_store_url: SecretString,
    /// Namespace of every Redis key (`QUEUE_KEY_PREFIX`, default `reviewd:`).
    pub queue_key_prefix: String,
    pub auth_secret: SecretString,
    pub encryption_key: Option<SecretString>,
    pub node_env: NodeEnv,
    pub app_env: String,
    pub port: u16,
    pub hostname: String,
    pub app_url: String,
    pub app_urls: Vec<String>,
    pub webhook_base_url: String,
    /// Where the authentication pages are reached: the base of the OAuth callback the
    /// dashboard gives GitLab (`{AUTH_URL}/platforms/:id/oauth/callback`).
    pub auth_url: String,
    /// Other AI providers' variables that are set: parsed, reported at start, unused
    /// (PROVIDERA is the only active provider). Names only, never values.
    pub inactive_ai_variables: Vec<String>,
    pub system_name: String,
    pub cors_origin: Option<String>,
    pub provider_a: ProviderAConfig,
    pub ai_review_concurrency: u32,
    /// Minutes a review may run; fractions are accepted (`0.5` is 30 s).
    pub review_timeout_minutes: f64,
    pub runner_heartbeat_timeout_ms: u64,
    /// How long a new task waits for a capable online runner before the server's
    /// workers run it; 0 turns the preference off.
    pub runner_claim_grace_ms: u64,
    /// How long a round prepared ahead of a runner's claim stays good before it is
    /// prepared again (300 s by default); 0 turns preparing ahead off: claims
    /// prepare every round, with its platform calls, on the runner's request. The
    /// preparer runs only where the periodic jobs do (`PERIODIC_JOBS_ENABLED`).
    pub runner_prepared_max_age_secs: u64,
    pub log_dir: PathBuf,
    pub log_level: String,
    pub log_format_json: bool,
    pub log_retention_days: u32,
    pub backup_dir: PathBuf,
    pub backup_retention_days: u32,
    pub auto_backup_enabled: bool,
    pub metrics_retention_days: u32,
    /// Seconds between periodic metric collections (`METRICS_COLLECT_INTERVAL_SECS`,
    /// default 60); also the scheduler's tick when shorter than 15 s.
    pub metrics_collect_interval_secs: u64,
    /// Whether this replica takes part in periodic jobs (`PERIODIC_JOBS_ENABLED`,
    /// default true); tests of the API turn them off to see only what they do.
    pub periodic_jobs_enabled: bool,
    /// Attempts per notification delivery (`NOTIFY_MAX_ATTEMPTS`).
    pub notify_max_attempts: u32,
    /// Wait before a delivery's second attempt, doubled after (`NOTIFY_RETRY_BASE_MS`).
    pub notify_retry_base_ms: u64,
    /// Timeout of one delivery attempt (`NOTIFY_TIMEOUT_SECS`).
    pub notify_timeout_secs: u64,
    /// Base URL of the `chatA` (Slack) Web API (`NOTIFY_CHAT_A_API_URL`).
    pub notify_slack_api_url: String,
    /// A delivery still `pending` after this long was interrupted (its process
    /// stopped) and is taken up again (`NOTIFY_RESUME_AFTER_SECS`).
    pub notify_resume_after_secs: u64,
    /// How often the feedback pass reads the threads of recently reviewed MRs
    /// (`FEEDBACK_PASS_INTERVAL_SECS`; 0 turns it off).
    pub feedback_pass_interval_secs: u64,
    /// How far back the pass looks, in days (`FEEDBACK_PASS_DAYS`).
    pub feedback_pass_days: u32,
    /// At most this many MRs per pass, the latest first (`FEEDBACK_PASS_MAX_MRS`).
    pub feedback_pass_max_mrs: u32,
    /// Accept push endpoints on http or private addresses (`NOTIFY_PUSH_ALLOW_PRIVATE`).
    pub notify_push_allow_private: bool,
    /// Local time of the daily digest, and of the weekly one on Mondays (`NOTIFY_DIGEST_TIME`).
    pub notify_digest_time: chrono::NaiveTime,
    pub reset_db_key: Option<SecretString>,
    pub root_email: Option<String>,
    pub root_password: Option<SecretString>,
    pub session_ttl_hours: u32,
    pub database_pool_size: usize,
    /// Outbound calls (platforms, AI, notifications): timeout of each attempt.
    pub outbound_timeout_secs: u64,
    /// Outbound calls: attempts in all, retries included.
    pub outbound_max_attempts: u32,
    /// Outbound calls: first backoff delay, doubled per retry.
    pub outbound_retry_base_ms: u64,
    /// Whether this process runs review workers (`REVIEW_WORKERS_ENABLED`, default true).
    pub review_workers_enabled: bool,
    /// The lease of a running task: a worker renews it every quarter of it while it
    /// works, and another worker takes the task over once it has not been renewed
    /// for this long (`QUEUE_RECLAIM_IDLE_SECS`, default 60).
    pub queue_reclaim_idle_secs: u64,
    /// This process's name in the queue and on the tasks it holds
    /// (`QUEUE_CONSUMER_NAME`; default the machine's name and the port). Stable
    /// across restarts, so a restarted server resumes its own unfinished work at
    /// once; two live replicas must not share it.
    pub queue_consumer_name: Option<String>,
    /// Seconds before a transiently failed task is queued again (`QUEUE_RETRY_DELAY_SECS`).
    pub queue_retry_delay_secs: u64,
    /// Age of a never-queued task before the sweep queues it (`QUEUE_ORPHAN_AGE_SECS`).
    pub queue_orphan_age_secs: u64,
    /// HTTP worker threads (`HTTP_WORKERS`); actix picks one per core when unset.
    pub http_workers: Option<usize>,
    /// Tokens of context per prompt besides the diff (`REVIEW_CONTEXT_TOKENS`,
    /// default 6000; a project's `contextBudgetTokens` and `.reviewd.yml` refine it).
    pub review_context_tokens: u32,
    /// Platform calls a review's context may make (`REVIEW_CONTEXT_MAX_CALLS`).
    pub review_context_max_calls: u32,
    /// Megabytes a review's context may download (`REVIEW_CONTEXT_MAX_MB`).
    pub review_context_max_mb: u64,
    /// Whether the whole repository at head is indexed for definitions and callers
    /// (`REVIEW_CONTEXT_INDEX`, default true; one archive download per head).
    pub review_context_index: bool,
    /// Megabytes of file contents kept between reviews (`REVIEW_CONTEXT_CACHE_MB`).
    pub review_context_cache_mb: usize,
    /// Answers reviewd gives in one merge request per hour (`TALK_PER_MR_HOUR`).
    pub talk_per_mr_hour: u32,
    /// Answers reviewd gives one person per hour (`TALK_PER_AUTHOR_HOUR`).
    pub talk_per_author_hour: u32,
}

const MIN_AUTH_SECRET_LEN: usize = 32;
const MIN_PASSWORD_LEN: usize = 8;

impl Config {
    /// Reads the process environment.
    ///
    /// # Errors
    /// The first variable that is missing or malformed.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads variables through `lookup` (tests pass a map). Empty values count as unset.
    ///
    /// # Errors
    /// The first variable that is missing or malformed.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let get = |name: &str| {
            lookup(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let required = |name: &'static str| {
            get(name).ok_or_else(|| ConfigError::new(name, "is not set (required)"))
        };

        let database_url = SecretString::new(required("DATABASE_URL")?);
        let queue_store_url = required("QUEUE_STORE_URL")?;
        if !(queue_store_url.starts_with("redis://") || queue_store_url.starts_with("rediss://")) {
            return Err(ConfigError::new(
                "QUEUE_STORE_URL",
                "must be a redis:// or rediss:// URL",
            ));
        }
        let auth_secret = required("AUTH_SECRET")?;
        let secret_len = auth_secret.chars().count();
        if secret_len < MIN_AUTH_SECRET_LEN {
            return Err(ConfigError::new(
                "AUTH_SECRET",
                format!("must be at least {MIN_AUTH_SECRET_LEN} characters (it has {secret_len})"),
            ));
        }

        let node_env = match get("NODE_ENV").as_deref() {
            None | Some("development") => NodeEnv::Development,
            Some("production") => NodeEnv::Production,
            Some("test") => NodeEnv::Test,
            Some(other) => {
                return Err(ConfigError::new(
                    "NODE_ENV",
                    format!("must be development, production or test, not `{other}`"),
                ));
            }
        };
        let port = number::<u16>(&get, "PORT", 3000)?;
        let hostname = get("HOSTNAME").unwrap_or_else(|| "localhost".to_owned());
        // Without APP_URL the service is reached where it listens (the contract's
        // `http://localhost:3000` with the default PORT and HOSTNAME).
        let listen_host = match hostname.as_str() {
            "0.0.0.0" | "::" | "[::]" => "localhost",
            other => other,
        };
        let local_url = format!("http://{listen_host}:{port}");
        let app_url = get("APP_URL").map(|u| u.trim_end_matches('/').to_owned());
        let app_urls: Vec<String> = match get("APP_URLs") {
            Some(list) => list
                .split(',')
                .map(|u| u.trim().trim_end_matches('/').to_owned())
                .filter(|u| !u.is_empty())
                .collect(),
            None => vec![app_url.clone().unwrap_or_else(|| local_url.clone())],
        };
        for url in &app_urls {
            check_url("APP_URLs", url)?;
        }
        let first_app_url = app_urls.first().cloned().unwrap_or_default();
        let app_url = app_url.unwrap_or(local_url);
        check_url("APP_URL", &app_url)?;
        let auth_url = get("AUTH_URL")
            .map(|u| u.trim_end_matches('/').to_owned())
            .unwrap_or(first_app_url);
        check_url("AUTH_URL", &auth_url)?;
        let webhook_base_url = get("WEBHOOK_BASE_URL").unwrap_or_else(|| app_url.clone());
        check_url("WEBHOOK_BASE_URL", &webhook_base_url)?;

        let log_level = get("LOG_LEVEL").unwrap_or_else(|| "info".to_owned());
        if !matches!(log_level.as_str(), "error" | "warn" | "info" | "debug") {
            return Err(ConfigError::new(
                "LOG_LEVEL",
                "must be error, warn, info or debug",
            ));
        }
        let root_password = get("ROOT_PASSWORD").map(SecretString::new);
        if root_password
            .as_ref()
            .is_some_and(|p| p.expose().chars().count() < MIN_PASSWORD_LEN)
        {
            return Err(ConfigError::new(
                "ROOT_PASSWORD",
                format!("must be at least {MIN_PASSWORD_LEN} characters"),
            ));
        }
        let ai_review_concurrency = number::<u32>(&get, "AI_REVIEW_CONCURRENCY", 3)?;
        if ai_review_concurrency == 0 {
            return Err(ConfigError::new(
                "AI_REVIEW_CONCURRENCY",
                "must be at least 1",
            ));
        }

        Ok(Config {
            database_url,
            queue_store_url: SecretString::new(queue_store_url),
            queue_key_prefix: get("QUEUE_KEY_PREFIX").unwrap_or_else(|| "reviewd:".to_owned()),
            auth_secret: SecretString::new(auth_secret),
            encryption_key: get("ENCRYPTION_KEY").map(SecretString::new),
            app_env: get("APP_ENV").unwrap_or_else(|| node_env.as_str().to_owned()),
            node_env,
            port,
            hostname,
            auth_url,
            inactive_ai_variables: inactive_ai_variables(&get),
            app_url,
            app_urls,
            webhook_base_url,
            system_name: get("SYSTEM_NAME").unwrap_or_else(|| "reviewd".to_owned()),
            cors_origin: get("CORS_ORIGIN"),
            provider_a: ProviderAConfig {
                api_key: get("PROVIDERA_API_KEY").map(SecretString::new),
                endpoint: get("PROVIDERA_ENDPOINT"),
                model: get("PROVIDERA_MODEL"),
                input_price_per_mtok: price(&get, "PROVIDERA_INPUT_PRICE_PER_MTOK")?,
                output_price_per_mtok: price(&get, "PROVIDERA_OUTPUT_PRICE_PER_MTOK")?,
            },
            ai_review_concurrency,
            review_timeout_minutes: positive_minutes(&get, "REVIEW_TIMEOUT_MINUTES", 30.0)?,
            runner_heartbeat_timeout_ms: number(&get, "RUNNER_HEARTBEAT_TIMEOUT_MS", 60_000)?,
            runner_claim_grace_ms: number(&get, "RUNNER_CLAIM_GRACE_MS", 15_000)?,
            runner_prepared_max_age_secs: number(&get, "RUNNER_PREPARED_MAX_AGE_SECS", 300)?,
            log_dir: PathBuf::from(get("LOG_DIR").unwrap_or_else(|| "./data/logs".to_owned())),
            log_level,
            log_format_json: get("LOG_FORMAT").as_deref() == Some("json")
                || (node_env == NodeEnv::Production && get("LOG_FORMAT").is_none()),
            log_retention_days: number(&get, "LOG_RETENTION_DAYS", 30)?,
            backup_dir: PathBuf::from(
                get("BACKUP_DIR").unwrap_or_else(|| "./data/backups".to_owned()),
            ),
            backup_retention_days: number(&get, "BACKUP_RETENTION_DAYS", 7)?,
            auto_backup_enabled: boolean(&get, "AUTO_BACKUP_ENABLED", false)?,
            metrics_retention_days: number(&get, "METRICS_RETENTION_DAYS", 30)?,
            metrics_collect_interval_secs: number(&get, "METRICS_COLLECT_INTERVAL_SECS", 60)?,
            periodic_jobs_enabled: boolean(&get, "PERIODIC_JOBS_ENABLED", true)?,
            notify_max_attempts: number::<u32>(&get, "NOTIFY_MAX_ATTEMPTS", 3)?.clamp(1, 10),
            notify_retry_base_ms: number(&get, "NOTIFY_RETRY_BASE_MS", 2_000)?,
            notify_timeout_secs: number::<u64>(&get, "NOTIFY_TIMEOUT_SECS", 15)?.max(1),
            notify_resume_after_secs: number::<u64>(&get, "NOTIFY_RESUME_AFTER_SECS", 600)?.max(1),
            notify_push_allow_private: boolean(&get, "NOTIFY_PUSH_ALLOW_PRIVATE", false)?,
            feedback_pass_interval_secs: number(&get, "FEEDBACK_PASS_INTERVAL_SECS", 1800)?,
            feedback_pass_days: number::<u32>(&get, "FEEDBACK_PASS_DAYS", 7)?.clamp(1, 90),
            feedback_pass_max_mrs: number::<u32>(&get, "FEEDBACK_PASS_MAX_MRS", 500)?.max(1),
            notify_slack_api_url: get("NOTIFY_CHAT_A_API_URL")
                .unwrap_or_else(|| "https://slack.com".to_owned())
                .trim_end_matches('/')
                .to_owned(),
            notify_digest_time: match get("NOTIFY_DIGEST_TIME") {
                None => chrono::NaiveTime::from_hms_opt(8, 0, 0).unwrap_or_default(),
                Some(v) => chrono::NaiveTime::parse_from_str(v.trim(), "%H:%M").map_err(|_| {
                    ConfigError::new("NOTIFY_DIGEST_TIME", "is not a time as HH:MM")
                })?,
            },
            reset_db_key: get("RESET_DB_KEY").map(SecretString::new),
            root_email: get("ROOT_EMAIL"),
            root_password,
            session_ttl_hours: number(&get, "SESSION_TTL_HOURS", 24 * 7)?,
            database_pool_size: number(&get, "DATABASE_POOL_SIZE", 16)?,
            outbound_timeout_secs: number(&get, "OUTBOUND_TIMEOUT_SECS", 30)?,
            outbound_max_attempts: number::<u32>(&get, "OUTBOUND_MAX_ATTEMPTS", 3)?.max(1),
            outbound_retry_base_ms: number(&get, "OUTBOUND_RETRY_BASE_MS", 500)?,
            review_workers_enabled: boolean(&get, "REVIEW_WORKERS_ENABLED", true)?,
            queue_reclaim_idle_secs: number::<u64>(&get, "QUEUE_RECLAIM_IDLE_SECS", 60)?.max(1),
            queue_consumer_name: get("QUEUE_CONSUMER_NAME").filter(|n| !n.trim().is_empty()),
            queue_retry_delay_secs: number(&get, "QUEUE_RETRY_DELAY_SECS", 30)?,
            queue_orphan_age_secs: number(&get, "QUEUE_ORPHAN_AGE_SECS", 30)?,
            review_context_tokens: bounded(
                &get,
                "REVIEW_CONTEXT_TOKENS",
                reviewd_domain::context::settings::DEFAULT_BUDGET_TOKENS,
                reviewd_domain::context::settings::BUDGET_RANGE,
            )?,
            review_context_max_calls: bounded(&get, "REVIEW_CONTEXT_MAX_CALLS", 60, 0..=10_000)?,
            review_context_max_mb: bounded(&get, "REVIEW_CONTEXT_MAX_MB", 64, 0..=4_096)?,
            review_context_index: boolean(&get, "REVIEW_CONTEXT_INDEX", true)?,
            review_context_cache_mb: bounded(&get, "REVIEW_CONTEXT_CACHE_MB", 64, 0..=16_384)?,
            talk_per_mr_hour: bounded(&get, "TALK_PER_MR_HOUR", 20, 0..=10_000)?,
            talk_per_author_hour: bounded(&get, "TALK_PER_AUTHOR_HOUR", 30, 0..=10_000)?,
            trusted_proxies: trusted_proxies(&get)?,
            http_workers: get("HTTP_WORKERS")
                .map(|_| number(&get, "HTTP_WORKERS", 1))
                .transpose()?,
        })
    }

    /// What the HTTP edge reads of this configuration.
    #[must_use]
    pub fn edge_settings(&self) -> EdgeSettings {
        EdgeSettings {
            system_name: self.system_name.clone(),
            auth_secret: self.auth_secret.clone(),
            app_url: self.app_url.clone(),
            app_urls: self.app_urls.clone(),
            auth_url: self.auth_url.clone(),
            cors_origin: self.cors_origin.clone(),
            node_env: self.node_env,
            app_env: self.app_env.clone(),
            reset_db_key: self.reset_db_key.clone(),
            root_email: self.root_email.clone(),
            root_password: self.root_password.clone(),
            runner_heartbeat_timeout: Duration::from_millis(self.runner_heartbeat_timeout_ms),
            trusted_proxies: self.trusted_proxies.clone(),
        }
    }

    /// How long one review may run (`REVIEW_TIMEOUT_MINUTES`).
    #[must_use]
    pub fn review_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.review_timeout_minutes * 60.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        Config::from_lookup(|k| map.get(k).cloned())
    }

    const BASE: [(&str, &str); 3] = [
        ("DATABASE_URL", "postgres://u:pw@localhost/db"),
        ("QUEUE_STORE_URL", "redis://localhost:6379"),
        ("AUTH_SECRET", "0123456789abcdef0123456789abcdef"),
    ];

    #[test]
    fn defaults_follow_the_contract() {
        let c = config(&BASE).unwrap();
        assert_eq!((c.port, c.hostname.as_str()), (3000, "localhost"));
        assert_eq!(c.app_urls, vec!["http://localhost:3000"]);
        assert_eq!(c.auth_url, "http://localhost:3000");
        assert_eq!(c.app_url, "http://localhost:3000");
        assert_eq!(
            (c.ai_review_concurrency, c.review_timeout_minutes),
            (3, 30.0)
        );
        assert_eq!(c.runner_heartbeat_timeout_ms, 60_000);
        assert_eq!(c.runner_prepared_max_age_secs, 300);
        assert_eq!(c.node_env, NodeEnv::Development);
        assert!(!c.auto_backup_enabled);
    }

    #[test]
    fn the_builtin_configuration_is_priced_only_by_its_variables() {
        let c = config(&BASE).unwrap();
        assert_eq!(
            (
                c.provider_a.input_price_per_mtok,
                c.provider_a.output_price_per_mtok
            ),
            (None, None),
            "no price is known unless set"
        );
        let mut vars = BASE.to_vec();
        vars.extend([
            ("PROVIDERA_INPUT_PRICE_PER_MTOK", "2.5"),
            ("PROVIDERA_OUTPUT_PRICE_PER_MTOK", "10"),
        ]);
        let c = config(&vars).unwrap();
        assert_eq!(
            (
                c.provider_a.input_price_per_mtok,
                c.provider_a.output_price_per_mtok
            ),
            (Some(2.5), Some(10.0))
        );
        for bad in ["-1", "cheap", "NaN"] {
            let mut vars = BASE.to_vec();
            vars.push(("PROVIDERA_OUTPUT_PRICE_PER_MTOK", bad));
            let err = config(&vars).unwrap_err().to_string();
            assert!(err.contains("PROVIDERA_OUTPUT_PRICE_PER_MTOK"), "{err}");
        }
    }

    #[test]
    fn without_app_url_the_listen_address_is_the_public_one() {
        let mut vars = BASE.to_vec();
        vars.extend([("PORT", "3999"), ("HOSTNAME", "0.0.0.0")]);
        let c = config(&vars).unwrap();
        assert_eq!(c.app_url, "http://localhost:3999");
        assert_eq!(c.app_urls, vec!["http://localhost:3999"]);
    }

    #[test]
    fn app_url_feeds_app_urls_and_auth_url() {
        let mut vars = BASE.to_vec();
        vars.push(("APP_URL", "https://review.example.com"));
        let c = config(&vars).unwrap();
        assert_eq!(c.app_urls, vec!["https://review.example.com"]);
        assert_eq!(c.auth_url, "https://review.example.com");
        assert_eq!(c.webhook_base_url, "https://review.example.com");
        assert!(c.edge_settings().secure_cookies());
    }

    #[test]
    fn other_ai_providers_are_named_as_inactive_and_auth_url_is_checked() {
        let mut vars = BASE.to_vec();
        vars.extend([
            ("PROVIDERB_API_KEY", "sk-other"),
            ("PROVIDERZ_ENDPOINT", "https://ai.example/v1"),
            ("PROVIDERC_MODEL", " "),
            ("API_URL", "not even a url"),
        ]);
        let c = config(&vars).unwrap();
        assert_eq!(
            c.inactive_ai_variables,
            ["PROVIDERB_API_KEY", "PROVIDERZ_ENDPOINT"]
        );
        assert!(!format!("{c:?}").contains("sk-other"), "a value is kept");
        let mut bad = BASE.to_vec();
        bad.push(("AUTH_URL", "auth.example.com"));
        assert!(
            config(&bad)
                .unwrap_err()
                .to_string()
                .starts_with("AUTH_URL")
        );
        let mut trailing = BASE.to_vec();
        trailing.push(("AUTH_URL", "https://auth.example.com/"));
        assert_eq!(
            config(&trailing).unwrap().auth_url,
            "https://auth.example.com"
        );
    }

    #[test]
    fn trusted_proxies_are_addresses_and_ranges_and_nobody_by_default() {
        use reviewd_api::client_addr::ProxyHeader;
        assert!(config(&BASE).unwrap().trusted_proxies.nets.is_empty());
        let mut vars = BASE.to_vec();
        vars.push(("TRUSTED_PROXIES", " 10.0.0.0/8, 192.0.2.7 ,fd00::/8,"));
        let c = config(&vars).unwrap();
        let shown: Vec<String> = c
            .trusted_proxies
            .nets
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(shown, ["10.0.0.0/8", "192.0.2.7/32", "fd00::/8"]);
        assert_eq!(c.trusted_proxies.header, ProxyHeader::XForwardedFor);
        assert_eq!(c.edge_settings().trusted_proxies, c.trusted_proxies);
        vars.push(("TRUSTED_PROXY_HEADER", "Forwarded"));
        assert_eq!(
            config(&vars).unwrap().trusted_proxies.header,
            ProxyHeader::Forwarded
        );
        let mut other = BASE.to_vec();
        other.push(("TRUSTED_PROXY_HEADER", "x-real-ip"));
        assert!(
            config(&other)
                .unwrap_err()
                .to_string()
                .starts_with("TRUSTED_PROXY_HEADER")
        );
        let mut bad = BASE.to_vec();
        bad.push(("TRUSTED_PROXIES", "10.0.0.0/8, ingress.local"));
        let err = config(&bad).unwrap_err().to_string();
        assert!(
            err.starts_with("TRUSTED_PROXIES") && err.contains("ingress.local"),
            "{err}"
        );
    }

    #[test]
    fn missing_or_bad_required_values_name_the_variable() {
        for missing in ["DATABASE_URL", "QUEUE_STORE_URL", "AUTH_SECRET"] {
            let vars: Vec<_> = BASE
                .iter()
                .copied()
                .filter(|(k, _)| *k != missing)
                .collect();
            assert_eq!(config(&vars).unwrap_err().var, missing);
        }
        let mut vars = BASE.to_vec();
        vars[2] = ("AUTH_SECRET", "short-secret");
        let err = config(&vars).unwrap_err();
        assert_eq!(err.var, "AUTH_SECRET");
        assert!(
            !err.to_string().contains("short-secret"),
            "the secret must not be echoed"
        );
        vars[2] = BASE[2];
        vars.push(("PORT", "eighty"));
        assert_eq!(config(&vars).unwrap_err().var, "PORT");
    }

    #[test]
    fn secrets_are_masked_in_debug_output() {
        let c = config(&BASE).unwrap();
        let printed = format!("{c:?}");
        assert!(!printed.contains("0123456789abcdef"));
        assert!(!printed.contains(":pw@"));
    }
}
