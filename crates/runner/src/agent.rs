//! The agent's life: register, heartbeat on a timer, claim up to free capacity,
//! run each task, and on a stop signal stop claiming, let running tasks finish
//! (or report them failed after the grace period) and deregister.

use crate::config::RunnerConfig;
use crate::job::{self, JobContext};
use crate::server::{Identity, ServerClient, ServerError};
use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_runner_protocol::RunnerStatus;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// How long cancelled tasks get to report their failure.
const REPORT_GRACE: Duration = Duration::from_secs(30);

pub struct Agent {
    config: Arc<RunnerConfig>,
    server: ServerClient,
    me: Identity,
    running: Arc<AtomicU32>,
    /// File contents, outlines and symbol indexes kept between this runner's
    /// tasks (a later round of an MR reads and parses only what changed).
    caches: Arc<reviewd_domain::context::ContextCaches>,
}

impl Agent {
    /// # Errors
    /// The HTTP client cannot be built.
    pub fn new(config: RunnerConfig) -> anyhow::Result<Self> {
        let policy = RetryPolicy {
            max_attempts: 4,
            base_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(10),
            timeout: Duration::from_secs(config.http_timeout_secs.max(1)),
        };
        let once = HttpClient::new(RetryPolicy {
            max_attempts: 1,
            ..policy
        })?;
        let server = ServerClient::new(
            HttpClient::new(policy)?,
            once,
            &config.server_url,
            &config.token,
        );
        let me = Identity {
            id: config.runner_id(),
            name: config.runner_name(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            max_concurrent_jobs: config.max_concurrent_jobs.max(1),
            tags: config.tag_list(),
        };
        Ok(Self {
            config: Arc::new(config),
            server,
            me,
            running: Arc::new(AtomicU32::new(0)),
            caches: Arc::default(),
        })
    }

    /// Runs until `stop` resolves, then shuts down gracefully.
    ///
    /// # Errors
    /// The server refuses the API key (401/403) at registration.
    pub async fn run(self, stop: impl Future<Output = ()>) -> anyhow::Result<()> {
        tokio::pin!(stop);
        tokio::select! {
            r = self.register_until_accepted() => r?,
            () = &mut stop => return Ok(()),
        }
        let heartbeat_stop = CancellationToken::new();
        let heartbeats = tokio::spawn(self.heartbeats(heartbeat_stop.clone()));
        let cancel_jobs = CancellationToken::new();
        let mut jobs = JoinSet::new();
        let ctx = JobContext {
            server: self.server.clone(),
            config: self.config.clone(),
            runner_id: self.me.id.clone(),
            ai_policy: RetryPolicy {
                timeout: Duration::from_secs(self.config.http_timeout_secs.max(1)),
                ..RetryPolicy::default()
            },
            analyzer: Arc::new(reviewd_syntax::TreeSitterAnalyzer::new()),
            caches: self.caches.clone(),
        };
        let mut poll = tokio::time::interval(self.config.poll_interval());
        poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = &mut stop => break,
                _ = poll.tick() => {}
                Some(_) = jobs.join_next(), if !jobs.is_empty() => continue,
            }
            self.claim_into(&ctx, &mut jobs, &cancel_jobs).await;
        }

        tracing::info!(running = jobs.len(), "runner.stopping");
        let grace = Duration::from_secs(self.config.shutdown_grace_secs);
        if tokio::time::timeout(grace, drain(&mut jobs)).await.is_err() {
            tracing::warn!(running = jobs.len(), "runner.stopping_cancels_tasks");
            cancel_jobs.cancel();
            if tokio::time::timeout(REPORT_GRACE, drain(&mut jobs))
                .await
                .is_err()
            {
                jobs.abort_all();
            }
        }
        heartbeat_stop.cancel();
        let _ = heartbeats.await;
        match self.server.deregister(&self.me.id).await {
            Ok(()) => tracing::info!(runner.id = %self.me.id, "runner.deregistered"),
            Err(e) => {
                tracing::warn!(runner.id = %self.me.id, error = %e, "runner.deregister_failed")
            }
        }
        Ok(())
    }

    async fn register_until_accepted(&self) -> anyhow::Result<()> {
        loop {
            match self.server.register(&self.me).await {
                Ok(()) => {
                    tracing::info!(runner.id = %self.me.id, server = %self.config.server_url, tags = ?self.me.tags, max = self.me.max_concurrent_jobs, "runner.registered");
                    return Ok(());
                }
                // A refusal (bad key, missing permission, id in use, bad settings)
                // does not change by trying again.
                Err(ServerError::Http(e))
                    if e.status()
                        .is_some_and(|s| (400..500).contains(&s) && s != 408 && s != 429) =>
                {
                    anyhow::bail!("the server refused this runner's registration: {e}");
                }
                Err(e) => {
                    tracing::warn!(error = %e, "runner.register_failed");
                    tokio::time::sleep(self.config.poll_interval().max(Duration::from_secs(1)))
                        .await;
                }
            }
        }
    }

    fn heartbeats(&self, stop: CancellationToken) -> impl Future<Output = ()> + use<> {
        let (server, me, running, every) = (
            self.server.clone(),
            self.me.clone(),
            self.running.clone(),
            self.config.heartbeat_interval(),
        );
        async move {
            let mut tick = tokio::time::interval(every);
            loop {
                tokio::select! {
                    () = stop.cancelled() => return,
                    _ = tick.tick() => {}
                }
                let current = running.load(Ordering::SeqCst);
                let status = if current >= me.max_concurrent_jobs {
                    RunnerStatus::Busy
                } else {
                    RunnerStatus::Online
                };
                match server.heartbeat(&me.id, status, current).await {
                    Ok(()) => {}
                    Err(ServerError::UnknownRunner) => {
                        tracing::warn!(runner.id = %me.id, "runner.unknown_registering_again");
                        if let Err(e) = server.register(&me).await {
                            tracing::warn!(error = %e, "runner.register_failed");
                        }
                    }
                    Err(e) => tracing::warn!(error = %e, "runner.heartbeat_failed"),
                }
            }
        }
    }

    async fn claim_into(
        &self,
        ctx: &JobContext,
        jobs: &mut JoinSet<()>,
        cancel: &CancellationToken,
    ) {
        let free = self
            .me
            .max_concurrent_jobs
            .saturating_sub(self.running.load(Ordering::SeqCst));
        if free == 0 {
            return;
        }
        let tasks = match self.server.claim(&self.me.id, free).await {
            Ok(tasks) => tasks,
            Err(ServerError::UnknownRunner) => {
                if let Err(e) = self.server.register(&self.me).await {
                    tracing::warn!(error = %e, "runner.register_failed");
                }
                return;
            }
            Err(e) => {
                tracing::warn!(error = %e, "runner.claim_failed");
                return;
            }
        };
        for task in tasks {
            tracing::info!(task.id = %task.id, project = %task.project_path, mr = task.mr_iid, "runner.task_claimed");
            self.running.fetch_add(1, Ordering::SeqCst);
            let (ctx, cancel, running) = (ctx.clone(), cancel.clone(), self.running.clone());
            jobs.spawn(async move {
                job::run(&ctx, task, cancel).await;
                running.fetch_sub(1, Ordering::SeqCst);
            });
        }
    }
}

async fn drain(jobs: &mut JoinSet<()>) {
    while jobs.join_next().await.is_some() {}
}
