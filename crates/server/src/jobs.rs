//! The server's periodic jobs and what each one does.

use crate::config::Config;
use chrono::{NaiveTime, Utc};
use reviewd_domain::model::notification::Frequency;
use reviewd_domain::services::{
    FeedbackService, MonitoringService, NotificationService, RunnerService,
};
use reviewd_runtime::backup;
use reviewd_runtime::logs;
use reviewd_runtime::scheduler::{Job, Schedule};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Retention deletes old rows hourly, so a table never holds much more than the
/// retention period.
const RETENTION_EVERY: Duration = Duration::from_secs(3600);
/// Log files are checked hourly; they roll over daily.
const LOG_PRUNE_EVERY: Duration = Duration::from_secs(3600);

#[must_use]
pub fn collect_interval(config: &Config) -> Duration {
    Duration::from_secs(config.metrics_collect_interval_secs.max(1))
}

/// Jobs run by one replica per period.
pub fn shared(config: &Config, monitoring: &Arc<MonitoringService>) -> Vec<Job> {
    let mut jobs = Vec::new();
    let m = monitoring.clone();
    jobs.push(Job::new(
        "metrics.collect",
        Schedule::Every(collect_interval(config)),
        move || {
            let m = m.clone();
            async move {
                let c = m.collect().await.map_err(|e| e.to_string())?;
                Ok(format!(
                    "cpu {:.1} %, database {:.1} ms",
                    c.system.cpu_usage_percent, c.database.query_latency_ms
                ))
            }
        },
    ));
    let (m, days) = (monitoring.clone(), config.metrics_retention_days);
    jobs.push(Job::new(
        "metrics.retention",
        Schedule::Every(RETENTION_EVERY),
        move || {
            let m = m.clone();
            async move {
                let report = m.prune(days).await.map_err(|e| e.to_string())?;
                Ok(format!(
                    "removed {} system, {} database and {} API metrics, {} health checks, {} job runs",
                    report.system_metrics,
                    report.database_metrics,
                    report.api_metrics,
                    report.health_checks,
                    report.job_runs
                ))
            }
        },
    ));
    if config.auto_backup_enabled {
        let url = config.database_url.expose().to_owned();
        let (dir, keep) = (config.backup_dir.clone(), config.backup_retention_days);
        jobs.push(Job::new(
            "database.backup",
            Schedule::DailyAt(NaiveTime::from_hms_opt(2, 0, 0).unwrap_or(NaiveTime::MIN)),
            move || backup_job(url.clone(), dir.clone(), keep),
        ));
    }
    jobs
}

async fn backup_job(url: String, dir: PathBuf, keep_days: u32) -> Result<String, String> {
    let now = Utc::now();
    let done = backup::run(&url, &dir, now).await?;
    let pruned = backup::prune(&dir, keep_days, now).map_err(|e| e.to_string())?;
    Ok(format!(
        "{} ({} bytes); {} expired backup(s) deleted",
        done.path.display(),
        done.size_bytes,
        pruned.len()
    ))
}

/// Work every replica does on each tick: add its request counts to the shared
/// buckets, and prune its log directory now and then.
pub fn local(
    config: &Config,
    monitoring: &Arc<MonitoringService>,
) -> impl Fn() -> futures_util::future::BoxFuture<'static, ()> + Send + Sync + 'static {
    let monitoring = monitoring.clone();
    let (dir, keep) = (config.log_dir.clone(), config.log_retention_days);
    let last_prune: Arc<Mutex<Option<Instant>>> = Arc::default();
    move || {
        let (monitoring, dir, last_prune) = (monitoring.clone(), dir.clone(), last_prune.clone());
        Box::pin(async move {
            if let Err(e) = monitoring.flush_api().await {
                tracing::warn!(error = %e, "monitoring.flush_failed");
            }
            let due = last_prune.lock().is_ok_and(|mut last| {
                let due = last.is_none_or(|t| t.elapsed() >= LOG_PRUNE_EVERY);
                if due {
                    *last = Some(Instant::now());
                }
                due
            });
            if due {
                match logs::prune(&dir, keep, Utc::now().date_naive()) {
                    Ok(deleted) if !deleted.is_empty() => {
                        tracing::info!(count = deleted.len(), "logs.pruned");
                    }
                    Ok(_) => {}
                    Err(e) => tracing::warn!(error = %e, "logs.prune_failed"),
                }
            }
        })
    }
}

/// Reads the threads of the MRs reviewed in the last `FEEDBACK_PASS_DAYS` for
/// the feedback no webhook announces (GitHub reactions, GitLab resolved threads);
/// `None` when `FEEDBACK_PASS_INTERVAL_SECS` is 0.
pub fn feedback_pass(config: &Config, feedback: &Arc<FeedbackService>) -> Option<Job> {
    if config.feedback_pass_interval_secs == 0 {
        return None;
    }
    let (days, max) = (config.feedback_pass_days, config.feedback_pass_max_mrs);
    let feedback = feedback.clone();
    Some(Job::new(
        "feedback.pass",
        Schedule::Every(Duration::from_secs(config.feedback_pass_interval_secs)),
        move || {
            let feedback = feedback.clone();
            async move {
                let since = Utc::now() - chrono::TimeDelta::days(i64::from(days));
                let r = feedback
                    .collect_recent(since, max)
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(format!(
                    "{} MR(s) read ({} failed): {} thread(s), {} record(s), {} withdrawn",
                    r.merge_requests,
                    r.failed,
                    r.collected.threads,
                    r.collected.recorded,
                    r.collected.withdrawn
                ))
            }
        },
    ))
}

/// Marks runners silent past `RUNNER_HEARTBEAT_TIMEOUT_MS` offline and gives their
/// tasks back to the queue; runs every half timeout (at most once a second).
pub fn runner_sweep(config: &Config, runners: &Arc<RunnerService>) -> Job {
    let timeout = Duration::from_millis(config.runner_heartbeat_timeout_ms.max(1000));
    let runners = runners.clone();
    Job::new(
        "runners.sweep",
        Schedule::Every((timeout / 2).max(Duration::from_secs(1))),
        move || {
            let runners = runners.clone();
            async move {
                let report = runners.sweep(timeout).await.map_err(|e| e.to_string())?;
                Ok(format!(
                    "{} runner(s) offline, {} task(s) requeued, {} failed",
                    report.runners_offline,
                    report.requeued.len(),
                    report.failed.len()
                ))
            }
        },
    )
}

/// Deliveries left `pending` by a stopped process are taken up again: looked for
/// every half `NOTIFY_RESUME_AFTER_SECS` (at most every five minutes).
pub fn resume_deliveries(config: &Config, notifications: &Arc<NotificationService>) -> Job {
    let after = Duration::from_secs(config.notify_resume_after_secs);
    let n = notifications.clone();
    Job::new(
        "notifications.resume",
        Schedule::Every((after / 2).clamp(Duration::from_secs(1), Duration::from_secs(300))),
        move || {
            let n = n.clone();
            async move {
                let resumed = n
                    .resume_interrupted(after)
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(format!("{resumed} interrupted delivery(ies) resumed"))
            }
        },
    )
}

/// The daily digest at `NOTIFY_DIGEST_TIME`, and the weekly one on Mondays at the
/// same time; each sends only when the settings' frequency is its own.
pub fn digests(config: &Config, notifications: &Arc<NotificationService>) -> Vec<Job> {
    let at = config.notify_digest_time;
    [
        (
            "notifications.daily_digest",
            Schedule::DailyAt(at),
            Frequency::Daily,
        ),
        (
            "notifications.weekly_digest",
            Schedule::WeeklyAt(chrono::Weekday::Mon, at),
            Frequency::Weekly,
        ),
    ]
    .into_iter()
    .map(|(name, schedule, frequency)| {
        let n = notifications.clone();
        Job::new(name, schedule, move || {
            let n = n.clone();
            async move {
                let events = n.send_digest(frequency).await.map_err(|e| e.to_string())?;
                Ok(format!("{events} event(s) digested"))
            }
        })
    })
    .collect()
}
