//! Building the server: checks that fail fast with one line naming the variable,
//! connections, migrations, the root user, then the HTTP listener.

use crate::config::Config;
use crate::csrf::TrustedOrigins;
use crate::extract::{json_config, path_config, query_config};
use crate::state::AppState;
use crate::{request_id, routes};
use actix_web::dev::Server;
use actix_web::middleware::{Compress, from_fn};
use actix_web::{App, HttpServer, web};
use reviewd_adapters::ai::{AiProviderPool, LimitedAi, UnconfiguredAi};
use reviewd_adapters::notify::NotifyOnFinish;
use reviewd_adapters::platforms::HttpPlatformClients;
use reviewd_adapters::sampler::HostSampler;
use reviewd_ai_openai::OpenAiProvider;
use reviewd_crypto::{Argon2PasswordHasher, HmacTokenHasher, SecretBox, derive};
use reviewd_domain::context::{CacheLimits, ContextCaches, ContextSettings};
use reviewd_domain::model::{BuiltinAi, SecretString};
use reviewd_domain::ports::{
    AiProvider, HealthProbe, PasswordHasher, PlatformClients, TaskQueue, TaskRepository,
    TokenHasher,
};
use reviewd_domain::services::{
    AiConfigService, ApiKeyService, ApiTally, AuthService, AuthSettings, Budgets, CatalogService,
    EngineSettings, FeedbackService, HealthService, InstallationSync, ManualReviewService,
    MonitoringService, NotificationService, NotifySettings, OAuthSettings, PlatformConfigService,
    ProjectService, ReviewEngine, ReviewHistory, RootOutcome, RunnerService, RunnerSettings,
    SystemResetService, TaskService, UserService, WebhookIntake, WebhookService,
};
use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_queue_redis::{
    RedisDataWipe, RedisDeliveryLog, RedisHealthProbe, RedisLoginThrottle, RedisTaskQueue,
    ThrottleLimits,
};
use reviewd_runtime::scheduler::Scheduler;
use reviewd_runtime::worker::{self, WorkerSettings, Workers};
use reviewd_store_postgres::{
    ConfigCache, PgAiConfigRepository, PgApiKeyRepository, PgCatalogRepository, PgDataWipe,
    PgFeedbackRepository, PgHealthCheckRepository, PgHealthProbe, PgJobLedger,
    PgMonitoringRepository, PgNotificationRepository, PgPlatformConfigRepository,
    PgProjectRepository, PgReviewQueries, PgReviewRepository, PgRunnerRepository,
    PgSessionRepository, PgSettingsRepository, PgTaskRepository, PgUserRepository, run_migrations,
};
use std::net::TcpListener;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use utoipa_actix_web::AppExt;
use utoipa_swagger_ui::SwaggerUi;

/// How long a stop waits for in-flight requests, then for running reviews.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest wait between two looks at the periodic jobs.
const SCHEDULER_TICK: Duration = Duration::from_secs(15);

/// How long start-up waits for PostgreSQL or Redis before giving up.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Why the server cannot start, as one line naming the variable at fault.
#[derive(Debug, thiserror::Error)]
#[error("{var}: {reason}")]
pub struct StartupError {
    pub var: &'static str,
    pub reason: String,
}

impl StartupError {
    fn new(var: &'static str, reason: impl Into<String>) -> Self {
        Self {
            var,
            reason: reason.into(),
        }
    }
}

/// Creates `dir` if needed and proves a file can be written in it.
fn ensure_writable(var: &'static str, dir: &Path) -> Result<(), StartupError> {
    let fail = |e: std::io::Error| {
        StartupError::new(var, format!("{} is not writable: {e}", dir.display()))
    };
    std::fs::create_dir_all(dir).map_err(fail)?;
    let probe = dir.join(format!(".reviewd-write-check-{}", std::process::id()));
    std::fs::write(&probe, b"ok").map_err(fail)?;
    std::fs::remove_file(&probe).map_err(fail)
}

/// Applies pending migrations (`reviewd migrate`, and at every server start).
///
/// # Errors
/// `DATABASE_URL` when the database cannot be reached or a migration fails.
pub async fn migrate(config: &Config) -> Result<Vec<String>, StartupError> {
    run_migrations(config.database_url.expose())
        .await
        .map_err(|e| StartupError::new("DATABASE_URL", e.to_string()))
}

/// The stored AI configuration named `name_or_id` (its id or its name), key
/// decrypted, for `reviewd eval` to run cases against (no server is built).
///
/// # Errors
/// `DATABASE_URL` unreachable, or no configuration of that name or id.
pub async fn stored_ai_target(
    config: &Config,
    name_or_id: &str,
) -> Result<reviewd_domain::model::AiTarget, StartupError> {
    let pool = reviewd_store_postgres::connect(config.database_url.expose(), 2, CONNECT_TIMEOUT)
        .await
        .map_err(|e| StartupError::new("DATABASE_URL", format!("PostgreSQL {e}")))?;
    let secrets = SecretBox::from_config(
        config.encryption_key.as_ref().map(|k| k.expose()),
        config.auth_secret.expose(),
    );
    let repo = PgAiConfigRepository::new(pool, secrets);
    let configs = reviewd_domain::ports::AiConfigRepository::list(&repo)
        .await
        .map_err(|e| StartupError::new("DATABASE_URL", e.to_string()))?;
    let id = uuid::Uuid::parse_str(name_or_id).ok();
    configs
        .iter()
        .find(|c| Some(c.id) == id || c.name == name_or_id)
        .map(reviewd_domain::model::AiTarget::stored)
        .ok_or_else(|| {
            StartupError::new(
                "--ai",
                format!("no stored AI configuration is named `{name_or_id}`"),
            )
        })
}

/// The rounds of `project_id`'s reviews whose comments readers judged, newest
/// first, at most `limit`: what `reviewd export-eval` writes as eval cases.
///
/// # Errors
/// `DATABASE_URL` unreachable.
pub async fn judged_rounds(
    config: &Config,
    project_id: uuid::Uuid,
    limit: u32,
) -> Result<Vec<reviewd_domain::model::review_views::JudgedRound>, StartupError> {
    let pool = reviewd_store_postgres::connect(config.database_url.expose(), 2, CONNECT_TIMEOUT)
        .await
        .map_err(|e| StartupError::new("DATABASE_URL", format!("PostgreSQL {e}")))?;
    reviewd_domain::ports::ReviewQueries::judged_rounds(
        &reviewd_store_postgres::PgReviewQueries::new(pool),
        project_id,
        limit,
    )
    .await
    .map_err(|e| StartupError::new("DATABASE_URL", e.to_string()))
}

/// A built server bound to its port, not yet running.
pub struct Application {
    port: u16,
    server: Server,
    workers: Option<Workers>,
    monitoring: Arc<MonitoringService>,
}

impl Application {
    /// # Errors
    /// The first failed check, naming its variable.
    pub async fn build(config: Config) -> Result<Self, StartupError> {
        Self::build_with(config, |_| {}).await
    }

    /// As [`Application::build`], with `pages` mounted beside `/api` (the dashboard of
    /// `reviewd-web`, which depends on this crate and so cannot be called from it).
    ///
    /// # Errors
    /// The first failed check, naming its variable.
    pub async fn build_with(
        config: Config,
        pages: fn(&mut web::ServiceConfig),
    ) -> Result<Self, StartupError> {
        if !config.inactive_ai_variables.is_empty() {
            tracing::warn!(
                variables = ?config.inactive_ai_variables,
                "config.inactive_ai_provider: only PROVIDERA_* is used; these are ignored"
            );
        }
        ensure_writable("LOG_DIR", &config.log_dir)?;
        ensure_writable("BACKUP_DIR", &config.backup_dir)?;

        let pool = reviewd_store_postgres::connect(
            config.database_url.expose(),
            config.database_pool_size,
            CONNECT_TIMEOUT,
        )
        .await
        .map_err(|e| StartupError::new("DATABASE_URL", format!("PostgreSQL {e}")))?;
        let applied = migrate(&config).await?;
        if !applied.is_empty() {
            tracing::info!(migrations = ?applied, "database.migrated");
        }
        // After the migrations, which create the triggers it listens to.
        let config_cache = ConfigCache::listening(config.database_url.expose());
        let redis = reviewd_queue_redis::connect(config.queue_store_url.expose(), CONNECT_TIMEOUT)
            .await
            .map_err(|e| {
                StartupError::new("QUEUE_STORE_URL", format!("cannot connect to Redis: {e}"))
            })?;

        let users = Arc::new(PgUserRepository::new(pool.clone()));
        let api_key_repo = Arc::new(PgApiKeyRepository::new(pool.clone()));
        let passwords: Arc<dyn PasswordHasher> = Arc::new(Argon2PasswordHasher::new());
        let tokens: Arc<dyn TokenHasher> = Arc::new(HmacTokenHasher::new(&derive(
            config.auth_secret.expose(),
            b"reviewd/token-hash/v1",
        )));
        let throttle = Arc::new(RedisLoginThrottle::new(
            redis.clone(),
            &config.queue_key_prefix,
            ThrottleLimits::default(),
        ));
        let auth = AuthService::new(
            users.clone(),
            Arc::new(PgSessionRepository::new(pool.clone())),
            api_key_repo.clone(),
            passwords.clone(),
            tokens.clone(),
            throttle,
            AuthSettings {
                session_ttl: Duration::from_secs(u64::from(config.session_ttl_hours) * 3600),
            },
        );
        ensure_root(&auth, &config).await?;

        let secrets = SecretBox::from_config(
            config.encryption_key.as_ref().map(|k| k.expose()),
            config.auth_secret.expose(),
        );
        let http = HttpClient::new(RetryPolicy {
            max_attempts: config.outbound_max_attempts,
            base_delay: Duration::from_millis(config.outbound_retry_base_ms),
            max_delay: Duration::from_secs(30),
            timeout: Duration::from_secs(config.outbound_timeout_secs),
        })
        .map_err(|e| {
            StartupError::new(
                "OUTBOUND_TIMEOUT_SECS",
                format!("cannot build the HTTP client: {e}"),
            )
        })?;
        let clients: Arc<dyn PlatformClients> = Arc::new(HttpPlatformClients::new(http.clone()));
        let platform_config_repo = Arc::new(
            PgPlatformConfigRepository::new(pool.clone(), secrets.clone())
                .with_cache(config_cache.clone()),
        );
        let (health_configs, health_clients) = (platform_config_repo.clone(), clients.clone());
        let project_repo =
            Arc::new(PgProjectRepository::new(pool.clone()).with_cache(config_cache.clone()));
        let settings_repo =
            Arc::new(PgSettingsRepository::new(pool.clone()).with_cache(config_cache.clone()));
        let platform_configs = PlatformConfigService::new(
            platform_config_repo.clone(),
            clients.clone(),
            tokens.clone(),
            OAuthSettings {
                // The dashboard's callback is under AUTH_URL; API clients use APP_URLs.
                allowed_redirect_origins: config
                    .app_urls
                    .iter()
                    .chain(std::iter::once(&config.auth_url))
                    .cloned()
                    .collect(),
            },
        );
        let projects = Arc::new(ProjectService::new(
            project_repo.clone(),
            platform_config_repo.clone(),
            settings_repo.clone(),
            clients.clone(),
        ));
        let webhooks = WebhookService::new(
            project_repo.clone(),
            platform_config_repo.clone(),
            clients,
            &config.webhook_base_url,
        );
        let queue: Arc<dyn TaskQueue> = Arc::new(RedisTaskQueue::open(
            redis.clone(),
            &config.queue_key_prefix,
        ));
        // Made here when missing: then whatever was queued before is gone (Redis
        // lost its data while this server was down), and is queued again below.
        let queue_was_lost = queue.ensure().await.map_err(|e| {
            StartupError::new(
                "QUEUE_STORE_URL",
                format!("cannot prepare the task queue: {e}"),
            )
        })?;
        let task_repo: Arc<dyn TaskRepository> = Arc::new(PgTaskRepository::new(pool.clone()));
        let tasks = Arc::new(TaskService::new(task_repo.clone(), queue.clone()));
        if queue_was_lost {
            // Nothing else would queue these again later: a failure stops the start,
            // as an unreachable queue does.
            let count = tasks.requeue_lost().await.map_err(|e| {
                StartupError::new(
                    "QUEUE_STORE_URL",
                    format!("cannot queue the unfinished tasks again: {e}"),
                )
            })?;
            tracing::warn!(count, "queue.recreated_at_start");
        }
        let ai_configs = ai_configs(&config, &http, &pool, &secrets, &config_cache);
        let catalog_repo = Arc::new(PgCatalogRepository::new(pool.clone()));
        let manual_reviews = ManualReviewService::new(
            projects.clone(),
            settings_repo.clone(),
            tasks.clone(),
            catalog_repo.clone(),
        );
        let concurrency = usize::try_from(config.ai_review_concurrency).unwrap_or(1);
        let review_timeout = Duration::from_secs_f64(config.review_timeout_minutes * 60.0);
        let reclaim_idle = Duration::from_secs(config.queue_reclaim_idle_secs);
        let notifiers = reviewd_notify::notifiers(
            Duration::from_secs(config.notify_timeout_secs),
            &config.notify_chat_a_api_url,
        )
        .map_err(|e| StartupError::new("NOTIFY_TIMEOUT_SECS", e.to_string()))?;
        let notifications = Arc::new(NotificationService::new(
            Arc::new(PgNotificationRepository::new(pool.clone(), secrets.clone())),
            Arc::new(PgReviewQueries::new(pool.clone())),
            notifiers,
            Arc::new(reviewd_notify::P256VapidKeys),
            Arc::new(reviewd_adapters::clock::SystemClock),
            NotifySettings {
                max_attempts: config.notify_max_attempts,
                retry_base: Duration::from_millis(config.notify_retry_base_ms),
                app_url: config.app_url.clone(),
                system_name: config.system_name.clone(),
                push_allow_private: config.notify_push_allow_private,
            },
        ));
        let budgets = Arc::new(
            Budgets::new(
                project_repo.clone(),
                projects.clone(),
                Arc::new(reviewd_adapters::clock::SystemClock),
            )
            .notifying(notifications.clone()),
        );
        let feedback = Arc::new(FeedbackService::new(
            Arc::new(PgFeedbackRepository::new(pool.clone())),
            projects.clone(),
        ));
        let installations = Arc::new(InstallationSync::new(
            projects.clone(),
            project_repo.clone(),
            platform_config_repo.clone(),
        ));
        let intake = WebhookIntake::new(
            project_repo,
            settings_repo,
            tasks.clone(),
            Arc::new(RedisDeliveryLog::new(
                redis.clone(),
                &config.queue_key_prefix,
            )),
        )
        .checking_ai_with(ai_configs.clone())
        .with_budgets(budgets.clone())
        .with_feedback(feedback.clone());
        let engine = Arc::new(
            ReviewEngine::new(
                task_repo.clone(),
                Arc::new(PgReviewRepository::new(pool.clone())),
                projects.clone(),
                catalog_repo.clone(),
                ai_configs.clone(),
                EngineSettings {
                    file_concurrency: concurrency,
                    attempt_lease: reclaim_idle,
                    context: ContextSettings {
                        budget_tokens: config.review_context_tokens,
                        max_calls: config.review_context_max_calls,
                        max_bytes: config.review_context_max_mb * 1024 * 1024,
                        index_repository: config.review_context_index,
                        ..ContextSettings::default()
                    },
                    ..EngineSettings::default()
                },
            )
            .parses_code_with(Arc::new(reviewd_syntax::TreeSitterAnalyzer::new()))
            .shares_context_caches(Arc::new(ContextCaches::new(CacheLimits {
                blob_bytes: config.review_context_cache_mb * 1024 * 1024,
                ..CacheLimits::default()
            })))
            .observed_by(Arc::new(NotifyOnFinish(notifications.clone())))
            .reads_repo_config(Arc::new(reviewd_repo_config::YamlRepoConfig))
            .tracks_feedback(feedback.clone()),
        );
        crate::metrics::handle();
        let instance = format!("{}-{}", machine_name(&config.hostname), std::process::id());
        let started_at = Instant::now();
        let monitoring = Arc::new(MonitoringService::new(
            Arc::new(PgMonitoringRepository::new(pool.clone())),
            Arc::new(HostSampler::new(instance.clone(), started_at)),
            Arc::new(ApiTally::default()),
        ));
        let runners = Arc::new(RunnerService::new(
            Arc::new(PgRunnerRepository::new(pool.clone())),
            task_repo.clone(),
            tasks.clone(),
            engine.clone(),
            projects.clone(),
            RunnerSettings {
                task_lease: review_timeout,
                heartbeat_timeout: Duration::from_millis(config.runner_heartbeat_timeout_ms),
                claim_grace: Duration::from_millis(config.runner_claim_grace_ms),
                retry_delay: Duration::from_secs(config.queue_retry_delay_secs),
                prepared_max_age: Duration::from_secs(config.runner_prepared_max_age_secs),
                prepare_concurrency: reviewd_runtime::preparer::PREPARE_CONCURRENCY,
            },
            Arc::new(reviewd_adapters::clock::SystemClock),
        ));
        let workers = if config.review_workers_enabled {
            let consumer = config.queue_consumer_name.clone().unwrap_or_else(|| {
                let machine = machine_name(&config.hostname);
                match config.port {
                    // An ephemeral port is new at every start: so is the name.
                    0 => format!("{machine}-{}", uuid::Uuid::new_v4().simple()),
                    port => format!("{machine}-{port}"),
                }
            });
            Some(worker::spawn(
                engine.clone(),
                tasks.clone(),
                runners.clone(),
                queue.clone(),
                WorkerSettings {
                    concurrency: concurrency * worker::REVIEWS_PER_AI_CALL,
                    review_timeout,
                    reclaim_idle,
                    consumer,
                    retry_delay: Duration::from_secs(config.queue_retry_delay_secs),
                    orphan_age: Duration::from_secs(config.queue_orphan_age_secs.max(1)),
                    runner_grace: Duration::from_millis(config.runner_claim_grace_ms),
                },
            ))
        } else {
            None
        };

        let preparer_wake = reviewd_runtime::preparer::PreparerWake::default();
        if config.periodic_jobs_enabled {
            let interval = crate::jobs::collect_interval(&config);
            let mut jobs = crate::jobs::shared(&config, &monitoring);
            jobs.push(crate::jobs::runner_sweep(&config, &runners));
            jobs.extend(crate::jobs::digests(&config, &notifications));
            jobs.push(crate::jobs::resume_deliveries(&config, &notifications));
            jobs.extend(crate::jobs::feedback_pass(&config, &feedback));
            Scheduler::new(Arc::new(PgJobLedger::new(pool.clone())), instance, jobs).spawn(
                interval.min(SCHEDULER_TICK),
                crate::jobs::local(&config, &monitoring),
            );
            if config.runner_prepared_max_age_secs > 0 {
                reviewd_runtime::preparer::spawn(runners.clone(), preparer_wake.clone());
            }
        }
        let system_reset = SystemResetService::new(vec![
            Arc::new(PgDataWipe::new(pool.clone())),
            Arc::new(RedisDataWipe::new(redis.clone(), &config.queue_key_prefix)),
        ]);
        let probes: Vec<Arc<dyn HealthProbe>> = vec![
            Arc::new(PgHealthProbe::new(pool.clone())),
            Arc::new(RedisHealthProbe::new(redis)),
        ];
        let state = web::Data::new(AppState {
            api_keys: ApiKeyService::new(api_key_repo, tokens),
            users: UserService::new(users, passwords),
            platform_configs,
            ai_configs: ai_configs.clone(),
            projects,
            webhooks,
            tasks,
            intake,
            budgets,
            feedback,
            installations,
            manual_reviews,
            history: ReviewHistory::new(Arc::new(PgReviewQueries::new(pool.clone()))),
            engine,
            catalog: CatalogService::new(catalog_repo),
            monitoring: monitoring.clone(),
            system_reset,
            runners,
            preparer_wake,
            notifications,
            health: HealthService::new(
                Arc::new(PgHealthProbe::new(pool.clone())),
                health_configs,
                health_clients,
                ai_configs,
                Arc::new(reviewd_adapters::disk::DfDiskUsage),
                vec![
                    ("LOG_DIR".to_owned(), config.log_dir.clone()),
                    ("BACKUP_DIR".to_owned(), config.backup_dir.clone()),
                ],
                Arc::new(PgHealthCheckRepository::new(pool.clone())),
            ),

            auth,
            probes,
            started_at,
            config: Arc::new(config.clone()),
        });

        let listener = TcpListener::bind((config.hostname.as_str(), config.port)).map_err(|e| {
            StartupError::new(
                "PORT",
                format!("cannot listen on {}:{}: {e}", config.hostname, config.port),
            )
        })?;
        let port = listener
            .local_addr()
            .map_err(|e| StartupError::new("PORT", e.to_string()))?
            .port();
        let cors_config = config.clone();
        let trusted = web::Data::new(TrustedOrigins::from_config(&config));
        // Built once and kept serialized: every worker serves the same bytes (a copy
        // of the document in each worker, as Swagger UI's own route kept, held about
        // 4.5 MB of every worker's heap).
        let api_document = crate::openapi::document();
        let route_table = web::Data::new(crate::fallback::RouteTable::from_document(&api_document));
        let api_json = web::Data::new(crate::openapi::Serialized::of(&api_document));
        drop(api_document);
        let mut server = HttpServer::new(move || {
            App::new()
                .app_data(state.clone())
                .app_data(trusted.clone())
                .app_data(route_table.clone())
                .app_data(json_config())
                .app_data(query_config())
                .app_data(path_config())
                .wrap(from_fn(crate::hygiene::check_input))
                .wrap(from_fn(crate::csrf::check_origin))
                .wrap(Compress::default())
                .wrap(crate::cors::cors(&cors_config))
                .wrap(from_fn(crate::metrics::track))
                .wrap(from_fn(request_id::request_id))
                .service(SwaggerUi::new("/api/docs/{_:.*}").config(
                    utoipa_swagger_ui::Config::from(crate::openapi::DOCUMENT_PATH),
                ))
                .service(
                    web::resource(crate::openapi::DOCUMENT_PATH)
                        .app_data(api_json.clone())
                        .get(crate::openapi::serve),
                )
                .into_utoipa_app()
                .configure(routes::configure)
                .into_app()
                .configure(pages)
                .default_service(web::to(crate::fallback::not_found))
        })
        .shutdown_timeout(SHUTDOWN_TIMEOUT.as_secs());
        if let Some(workers) = config.http_workers {
            server = server.workers(workers);
        }
        let server = server
            .listen(listener)
            .map_err(|e| StartupError::new("PORT", e.to_string()))?
            .run();
        tracing::info!(
            address = %format!("http://{}:{port}", config.hostname),
            app_url = %config.app_url,
            "server.listening"
        );
        Ok(Self {
            port,
            server,
            workers,
            monitoring,
        })
    }

    /// The bound port (useful when `PORT=0`).
    #[must_use]
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serves until SIGINT/SIGTERM, then stops accepting, drains in-flight requests
    /// and running reviews (up to `SHUTDOWN_TIMEOUT` each), and flushes this
    /// replica's request counts.
    ///
    /// # Errors
    /// I/O errors of the server.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let served = self.server.await;
        if let Some(workers) = &self.workers {
            workers.drain(SHUTDOWN_TIMEOUT).await;
        }
        if let Err(e) = self.monitoring.flush_api().await {
            tracing::warn!(error = %e, "monitoring.final_flush_failed");
        }
        served
    }
}

async fn ensure_root(auth: &AuthService, config: &Config) -> Result<(), StartupError> {
    match (&config.root_email, &config.root_password) {
        (Some(email), Some(password)) => {
            let outcome = auth
                .ensure_root(email, password.expose())
                .await
                .map_err(|e| {
                    StartupError::new("ROOT_EMAIL", format!("cannot create the root user: {e}"))
                })?;
            if outcome == RootOutcome::Created {
                tracing::info!(email = %email, "root user created; log in at {}", config.app_url);
            }
        }
        _ => {
            tracing::warn!("ROOT_EMAIL and ROOT_PASSWORD are not both set: no root user is created")
        }
    }
    Ok(())
}

/// This machine's (or container's) name, for telling replicas apart in job runs,
/// samples and queue consumers. `HOSTNAME` is the address the server listens on
/// (often `0.0.0.0`, the same in every container), so the kernel's name is used,
/// and the listen address only where there is none.
fn machine_name(listen_host: &str) -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| listen_host.to_owned())
}

/// The AI configurations: the stored ones, and the built-in one of the `PROVIDERA_*`
/// variables with at most `AI_REVIEW_CONCURRENCY` calls in flight.
fn ai_configs(
    config: &Config,
    http: &HttpClient,
    pool: &reviewd_store_postgres::PgPool,
    secrets: &SecretBox,
    cache: &ConfigCache,
) -> Arc<AiConfigService> {
    let concurrency = usize::try_from(config.ai_review_concurrency).unwrap_or(1);
    let api_key = config
        .provider_a
        .api_key
        .as_ref()
        .map(|k| SecretString::new(k.expose()));
    let builtin: Arc<dyn AiProvider> = match &config.provider_a.endpoint {
        Some(endpoint) => Arc::new(LimitedAi::new(
            Arc::new(OpenAiProvider::new(
                http.clone(),
                reviewd_domain::model::ai_config::BUILTIN_NAME,
                endpoint,
                api_key.clone(),
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
            PgAiConfigRepository::new(pool.clone(), secrets.clone()).with_cache(cache.clone()),
        ),
        Arc::new(AiProviderPool::new(builtin, http.policy())),
        BuiltinAi {
            endpoint: config.provider_a.endpoint.clone(),
            api_key,
            model: config
                .provider_a
                .model
                .clone()
                .unwrap_or_else(|| reviewd_domain::model::ai_config::DEFAULT_MODEL.to_owned()),
            max_concurrency: concurrency,
            prices: reviewd_domain::model::AiPrices {
                input_per_mtok: config.provider_a.input_price_per_mtok,
                output_per_mtok: config.provider_a.output_price_per_mtok,
            },
        },
    ))
}
