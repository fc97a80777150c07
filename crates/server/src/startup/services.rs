//! The domain's services on their adapters: projects and platforms, the queue of tasks,
//! the review engine, notifications, runners, monitoring and health, gathered as the
//! HTTP edge's `AppState`.

use super::infra::Infra;
use super::{StartupError, ai, auth, checks};
use crate::config::Config;
use reviewd_adapters::notify::NotifyOnFinish;
use reviewd_adapters::platforms::HttpPlatformClients;
use reviewd_adapters::sampler::HostSampler;
use reviewd_api::state::AppState;
use reviewd_domain::context::{CacheLimits, ContextCaches, ContextSettings};
use reviewd_domain::ports::{HealthProbe, PlatformClients, TaskQueue, TaskRepository};
use reviewd_domain::services::{
    ApiTally, Budgets, CatalogService, ConversationParts, ConversationService, EngineSettings,
    FeedbackService, HealthService, InstallationSync, ManualReviewService, MonitoringService,
    NotificationService, NotifySettings, OAuthSettings, PlatformConfigService, ProjectService,
    ReviewEngine, ReviewHistory, RunnerService, RunnerSettings, SystemResetService, TalkLimits,
    TaskService, WebhookIntake, WebhookService,
};
use reviewd_queue_redis::{RedisDataWipe, RedisDeliveryLog, RedisHealthProbe, RedisTaskQueue};
use reviewd_store_postgres::{
    PgCatalogRepository, PgConversationRepository, PgDataWipe, PgFeedbackRepository,
    PgHealthCheckRepository, PgHealthProbe, PgMonitoringRepository, PgNotificationRepository,
    PgPlatformConfigRepository, PgProjectRepository, PgReviewQueries, PgReviewRepository,
    PgRunnerRepository, PgSettingsRepository, PgTaskRepository,
};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The services, and what the background runtime needs beside them.
pub(super) struct Wired {
    pub state: AppState,
    pub queue: Arc<dyn TaskQueue>,
    /// This replica's name in job runs and samples.
    pub instance: String,
}

/// The system clock, which every service here reads.
fn clock() -> Arc<reviewd_adapters::clock::SystemClock> {
    Arc::new(reviewd_adapters::clock::SystemClock)
}

pub(super) async fn wire(config: &Config, infra: &Infra) -> Result<Wired, StartupError> {
    let pool = &infra.pool;
    let access = auth::access(config, infra);
    checks::ensure_root(&access.auth, config).await?;

    let clients: Arc<dyn PlatformClients> = Arc::new(HttpPlatformClients::new(infra.http.clone()));
    let platform_config_repo = Arc::new(
        PgPlatformConfigRepository::new(pool.clone(), infra.secrets.clone())
            .with_cache(infra.cache.clone()),
    );
    let project_repo =
        Arc::new(PgProjectRepository::new(pool.clone()).with_cache(infra.cache.clone()));
    let settings_repo =
        Arc::new(PgSettingsRepository::new(pool.clone()).with_cache(infra.cache.clone()));
    let platform_configs = PlatformConfigService::new(
        platform_config_repo.clone(),
        clients.clone(),
        infra.tokens.clone(),
        Arc::new(reviewd_crypto::HmacWebhookVerifier),
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
        clients.clone(),
        &config.webhook_base_url,
    );
    let (queue, tasks, task_repo) = task_queue(config, infra).await?;
    let ai_configs = ai::ai_configs(config, infra);
    let catalog_repo = Arc::new(PgCatalogRepository::new(pool.clone()));
    let manual_reviews = ManualReviewService::new(
        projects.clone(),
        settings_repo.clone(),
        tasks.clone(),
        catalog_repo.clone(),
    );
    let notifiers = reviewd_notify::notifiers(
        Duration::from_secs(config.notify_timeout_secs),
        &config.notify_slack_api_url,
    )
    .map_err(|e| StartupError::new("NOTIFY_TIMEOUT_SECS", e.to_string()))?;
    let notifications = Arc::new(NotificationService::new(
        Arc::new(PgNotificationRepository::new(
            pool.clone(),
            infra.secrets.clone(),
        )),
        Arc::new(PgReviewQueries::new(pool.clone())),
        notifiers,
        Arc::new(reviewd_notify::P256VapidKeys),
        clock(),
        NotifySettings {
            max_attempts: config.notify_max_attempts,
            retry_base: Duration::from_millis(config.notify_retry_base_ms),
            app_url: config.app_url.clone(),
            system_name: config.system_name.clone(),
            push_allow_private: config.notify_push_allow_private,
        },
    ));
    let budgets = Arc::new(
        Budgets::new(project_repo.clone(), projects.clone(), clock())
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
    let conversation_repo = Arc::new(PgConversationRepository::new(pool.clone()));
    let review_repo = Arc::new(PgReviewRepository::new(pool.clone()));
    let talk = Arc::new(
        ConversationService::new(ConversationParts {
            conversations: conversation_repo.clone(),
            learnings: conversation_repo.clone(),
            tasks: tasks.clone(),
            task_records: task_repo.clone(),
            reviews: review_repo.clone(),
            feedback_store: Arc::new(PgFeedbackRepository::new(pool.clone())),
            projects: projects.clone(),
            settings: settings_repo.clone(),
            ai: ai_configs.clone(),
            clock: clock(),
        })
        .limited_to(TalkLimits {
            per_mr: config.talk_per_mr_hour,
            per_author: config.talk_per_author_hour,
            window: Duration::from_secs(3_600),
        })
        .with_budgets(budgets.clone())
        .with_feedback(feedback.clone()),
    );
    let intake = WebhookIntake::new(
        project_repo.clone(),
        settings_repo,
        tasks.clone(),
        Arc::new(RedisDeliveryLog::new(
            infra.redis.clone(),
            &config.queue_key_prefix,
        )),
    )
    .checking_ai_with(ai_configs.clone())
    .with_budgets(budgets.clone())
    .with_feedback(feedback.clone())
    .with_conversations(talk.clone());
    let analysis_repo: Arc<dyn reviewd_domain::ports::AnalysisRepository> = Arc::new(
        reviewd_store_postgres::PgAnalysisRepository::new(pool.clone()),
    );
    let analysis = Arc::new(reviewd_domain::services::AnalysisService::new(
        analysis_repo.clone(),
        project_repo.clone(),
    ));
    let engine = Arc::new(
        ReviewEngine::new(
            task_repo.clone(),
            review_repo,
            projects.clone(),
            catalog_repo.clone(),
            ai_configs.clone(),
            engine_settings(config),
        )
        .parses_code_with(Arc::new(reviewd_syntax::TreeSitterAnalyzer::new()))
        .shares_context_caches(Arc::new(ContextCaches::new(CacheLimits {
            blob_bytes: config.review_context_cache_mb * 1024 * 1024,
            ..CacheLimits::default()
        })))
        .observed_by(Arc::new(NotifyOnFinish(notifications.clone())))
        .reads_repo_config(Arc::new(reviewd_repo_config::YamlRepoConfig))
        .tracks_feedback(feedback.clone())
        .answers_with(talk.clone())
        .learns_from(conversation_repo)
        .reads_uploads(analysis_repo.clone()),
    );
    reviewd_api::metrics::handle();
    let instance = format!(
        "{}-{}",
        checks::machine_name(&config.hostname),
        std::process::id()
    );
    let started_at = Instant::now();
    let monitoring = Arc::new(MonitoringService::new(
        Arc::new(PgMonitoringRepository::new(pool.clone())),
        Arc::new(HostSampler::new(instance.clone(), started_at)),
        Arc::new(ApiTally::default()),
    ));
    let runners = Arc::new(RunnerService::new(
        Arc::new(PgRunnerRepository::new(pool.clone())),
        task_repo,
        tasks.clone(),
        engine.clone(),
        projects.clone(),
        runner_settings(config),
        clock(),
    ));
    let system_reset = SystemResetService::new(vec![
        Arc::new(PgDataWipe::new(pool.clone())),
        Arc::new(RedisDataWipe::new(
            infra.redis.clone(),
            &config.queue_key_prefix,
        )),
    ]);
    let probes: Vec<Arc<dyn HealthProbe>> = vec![
        Arc::new(PgHealthProbe::new(pool.clone())),
        Arc::new(RedisHealthProbe::new(infra.redis.clone())),
    ];
    let health = HealthService::new(
        Arc::new(PgHealthProbe::new(pool.clone())),
        platform_config_repo,
        clients,
        ai_configs.clone(),
        Arc::new(reviewd_adapters::disk::DfDiskUsage),
        vec![
            ("LOG_DIR".to_owned(), config.log_dir.clone()),
            ("BACKUP_DIR".to_owned(), config.backup_dir.clone()),
        ],
        Arc::new(PgHealthCheckRepository::new(pool.clone())),
    );
    let state = AppState {
        settings: Arc::new(config.edge_settings()),
        auth: access.auth,
        api_keys: access.api_keys,
        users: access.users,
        platform_configs,
        ai_configs,
        projects,
        webhooks,
        tasks,
        intake,
        budgets,
        feedback,
        installations,
        manual_reviews,
        history: ReviewHistory::new(Arc::new(PgReviewQueries::new(pool.clone()))),
        catalog: CatalogService::new(catalog_repo),
        health,
        monitoring,
        system_reset,
        runners,
        preparer_wake: reviewd_runtime::preparer::PreparerWake::default(),
        notifications,
        engine,
        talk,
        analysis,
        probes,
        started_at,
    };
    Ok(Wired {
        state,
        queue,
        instance,
    })
}

/// The queue in Redis and the tasks' rows; what Redis lost while this server was down
/// is queued again.
async fn task_queue(
    config: &Config,
    infra: &Infra,
) -> Result<
    (
        Arc<dyn TaskQueue>,
        Arc<TaskService>,
        Arc<dyn TaskRepository>,
    ),
    StartupError,
> {
    let queue: Arc<dyn TaskQueue> = Arc::new(RedisTaskQueue::open(
        infra.redis.clone(),
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
    let task_repo: Arc<dyn TaskRepository> = Arc::new(PgTaskRepository::new(infra.pool.clone()));
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
    Ok((queue, tasks, task_repo))
}

fn engine_settings(config: &Config) -> EngineSettings {
    EngineSettings {
        file_concurrency: usize::try_from(config.ai_review_concurrency).unwrap_or(1),
        attempt_lease: Duration::from_secs(config.queue_reclaim_idle_secs),
        context: ContextSettings {
            budget_tokens: config.review_context_tokens,
            max_calls: config.review_context_max_calls,
            max_bytes: config.review_context_max_mb * 1024 * 1024,
            index_repository: config.review_context_index,
            ..ContextSettings::default()
        },
        app_url: Some(config.app_url.clone()),
        ..EngineSettings::default()
    }
}

fn runner_settings(config: &Config) -> RunnerSettings {
    RunnerSettings {
        task_lease: config.review_timeout(),
        heartbeat_timeout: Duration::from_millis(config.runner_heartbeat_timeout_ms),
        claim_grace: Duration::from_millis(config.runner_claim_grace_ms),
        retry_delay: Duration::from_secs(config.queue_retry_delay_secs),
        prepared_max_age: Duration::from_secs(config.runner_prepared_max_age_secs),
        prepare_concurrency: reviewd_runtime::preparer::PREPARE_CONCURRENCY,
    }
}
