//! Periodic jobs. Shared jobs (metric collection, retention, backups, and later the
//! runner sweep and digests) run on one replica per period: the `JobLedger` elects
//! it under a Postgres advisory lock and records each run in `job_runs`. Local jobs
//! (flushing this replica's API counts, pruning its log files) run on every replica.

use chrono::{DateTime, Datelike, Local, NaiveTime, TimeDelta, TimeZone, Utc, Weekday};
use futures_util::future::BoxFuture;
use reviewd_domain::ports::{JobLedger, JobOutcome};
use std::sync::Arc;
use std::time::Duration;

/// When a job is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    /// Once per interval.
    Every(Duration),
    /// Once a day at this local time; a replica starting after it runs the day's
    /// missed run at once.
    DailyAt(NaiveTime),
    /// Once a week on this day at this local time (a missed run is made at once).
    WeeklyAt(Weekday, NaiveTime),
}

impl Schedule {
    /// The start of the current period: a run started at or after it counts as done.
    #[must_use]
    pub fn due_since(self, now: DateTime<Utc>) -> DateTime<Utc> {
        match self {
            Self::Every(every) => now - TimeDelta::from_std(every).unwrap_or(TimeDelta::zero()),
            Self::DailyAt(at) => {
                let local = now.with_timezone(&Local);
                let today = local.date_naive().and_time(at);
                // A time inside a daylight-saving gap does not exist that day: take
                // the hour after it.
                let candidate = Local
                    .from_local_datetime(&today)
                    .earliest()
                    .or_else(|| {
                        Local
                            .from_local_datetime(&(today + TimeDelta::hours(1)))
                            .earliest()
                    })
                    .map_or_else(|| today.and_utc(), |t| t.with_timezone(&Utc));
                if candidate <= now {
                    candidate
                } else {
                    candidate - TimeDelta::days(1)
                }
            }
            Self::WeeklyAt(day, at) => {
                let daily = Self::DailyAt(at).due_since(now);
                let today = daily.with_timezone(&Local).weekday();
                let back = (7 + today.num_days_from_monday() - day.num_days_from_monday()) % 7;
                daily - TimeDelta::days(i64::from(back))
            }
        }
    }

    /// How long a `running` record blocks others before it is taken for abandoned.
    fn stale_after(self) -> TimeDelta {
        match self {
            Self::Every(every) => TimeDelta::from_std(every * 2)
                .unwrap_or(TimeDelta::hours(1))
                .max(TimeDelta::minutes(5)),
            Self::DailyAt(_) | Self::WeeklyAt(..) => TimeDelta::hours(6),
        }
    }
}

/// The shortest wait between two ticks, whatever the jobs ask.
const MIN_TICK: Duration = Duration::from_millis(100);

type JobFn = Arc<dyn Fn() -> BoxFuture<'static, Result<String, String>> + Send + Sync>;

/// A job shared by the replicas.
#[derive(Clone)]
pub struct Job {
    pub name: &'static str,
    pub schedule: Schedule,
    run: JobFn,
}

impl Job {
    pub fn new<F, Fut>(name: &'static str, schedule: Schedule, run: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<String, String>> + Send + 'static,
    {
        Self {
            name,
            schedule,
            run: Arc::new(move || Box::pin(run())),
        }
    }
}

pub struct Scheduler {
    ledger: Arc<dyn JobLedger>,
    instance: String,
    jobs: Vec<Job>,
}

/// One run of a job, recorded in the ledger when it ends.
async fn run_job(ledger: Arc<dyn JobLedger>, job: Job, run: uuid::Uuid) {
    let outcome = match (job.run)().await {
        Ok(message) => {
            tracing::info!(job = job.name, detail = %message, "jobs.succeeded");
            JobOutcome::Succeeded(message)
        }
        Err(message) => {
            tracing::error!(job = job.name, detail = %message, "jobs.failed");
            JobOutcome::Failed(message)
        }
    };
    let label = if matches!(outcome, JobOutcome::Succeeded(_)) {
        "succeeded"
    } else {
        "failed"
    };
    // `name`, not `job`: Prometheus's scrape sets its own `job` label.
    metrics::counter!("reviewd_job_runs_total", "name" => job.name, "outcome" => label)
        .increment(1);
    if let Err(e) = ledger.finish(run, &outcome).await {
        tracing::warn!(job = job.name, error = %e, "jobs.finish_not_recorded");
    }
}

impl Scheduler {
    pub fn new(ledger: Arc<dyn JobLedger>, instance: String, jobs: Vec<Job>) -> Self {
        // Every job's counters from 0, so the first failure shows in `increase()`.
        for job in &jobs {
            for outcome in ["succeeded", "failed"] {
                metrics::counter!("reviewd_job_runs_total", "name" => job.name, "outcome" => outcome)
                    .increment(0);
            }
        }
        Self {
            ledger,
            instance,
            jobs,
        }
    }

    /// Starts every job that is due and not taken by another replica, each in a task
    /// of its own, so a long one (a backup, a digest to a slow channel) never holds
    /// up the others (the runner sweep); the ledger's `running` record keeps a job
    /// from starting again while it runs. Returns the names of the jobs started.
    pub async fn tick(&self, now: DateTime<Utc>) -> Vec<&'static str> {
        let mut started = Vec::new();
        for job in &self.jobs {
            let due_since = job.schedule.due_since(now);
            let run = match self
                .ledger
                .begin(
                    job.name,
                    &self.instance,
                    due_since,
                    job.schedule.stale_after(),
                )
                .await
            {
                Ok(Some(run)) => run,
                Ok(None) => continue,
                Err(e) => {
                    tracing::warn!(job = job.name, error = %e, "jobs.ledger_unavailable");
                    continue;
                }
            };
            tokio::spawn(run_job(self.ledger.clone(), job.clone(), run));
            started.push(job.name);
        }
        started
    }

    /// How often to look at the jobs: every `at_most`, and at least twice per period
    /// of the most frequent interval job. A job is due one full period after its last
    /// start, so a tick equal to its period would find it not quite due every other
    /// time and run it at twice its period (a runner sweep every 2 s, ticked every
    /// 15 s, ran every 15 s: silent runners kept their tasks that long).
    #[must_use]
    pub fn tick_every(&self, at_most: Duration) -> Duration {
        self.jobs
            .iter()
            .filter_map(|job| match job.schedule {
                Schedule::Every(every) => Some(every / 2),
                Schedule::DailyAt(_) | Schedule::WeeklyAt(..) => None,
            })
            .fold(at_most, Duration::min)
            .max(MIN_TICK)
    }

    /// Ticks (see [`Scheduler::tick_every`]) until the process ends; `local` runs on
    /// each tick first.
    pub fn spawn<L, LF>(self, at_most: Duration, local: L)
    where
        L: Fn() -> LF + Send + Sync + 'static,
        LF: std::future::Future<Output = ()> + Send + 'static,
    {
        let every = self.tick_every(at_most);
        tokio::spawn(async move {
            let mut interval = tokio::time::interval(every);
            interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                interval.tick().await;
                local().await;
                self.tick(Utc::now()).await;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(schedule: Schedule) -> Job {
        Job::new("test.job", schedule, || async { Ok(String::new()) })
    }

    fn scheduler(schedules: &[Schedule]) -> Scheduler {
        Scheduler::new(
            Arc::new(reviewd_testkit::MemoryStore::default()),
            "test".into(),
            schedules.iter().map(|s| job(*s)).collect(),
        )
    }

    #[test]
    fn the_tick_is_half_the_most_frequent_interval_within_its_bounds() {
        let daily = Schedule::DailyAt(NaiveTime::from_hms_opt(2, 0, 0).unwrap());
        let at_most = Duration::from_secs(15);
        assert_eq!(scheduler(&[daily]).tick_every(at_most), at_most);
        assert_eq!(
            scheduler(&[daily, Schedule::Every(Duration::from_secs(60))]).tick_every(at_most),
            at_most,
            "a job every minute is ticked for every 15 s: often enough"
        );
        assert_eq!(
            scheduler(&[
                Schedule::Every(Duration::from_secs(60)),
                Schedule::Every(Duration::from_secs(2)),
            ])
            .tick_every(at_most),
            Duration::from_secs(1)
        );
        assert_eq!(
            scheduler(&[Schedule::Every(Duration::from_millis(10))]).tick_every(at_most),
            MIN_TICK
        );
    }

    #[test]
    fn an_interval_job_is_due_once_per_interval() {
        let now = Utc::now();
        let due = Schedule::Every(Duration::from_secs(60)).due_since(now);
        assert_eq!(now - due, TimeDelta::seconds(60));
    }

    #[test]
    fn a_daily_job_counts_from_the_latest_occurrence_of_its_time() {
        let at = NaiveTime::from_hms_opt(2, 0, 0).unwrap();
        let now = Utc::now();
        let due = Schedule::DailyAt(at).due_since(now);
        assert!(due <= now);
        assert!(now - due < TimeDelta::days(1));
        assert_eq!(due.with_timezone(&Local).time(), at);
    }

    #[test]
    fn a_weekly_job_counts_from_the_latest_such_weekday() {
        let at = NaiveTime::from_hms_opt(8, 0, 0).unwrap();
        let now = Utc::now();
        let due = Schedule::WeeklyAt(Weekday::Mon, at).due_since(now);
        assert!(due <= now);
        assert!(now - due < TimeDelta::days(7));
        assert_eq!(due.with_timezone(&Local).weekday(), Weekday::Mon);
        assert_eq!(due.with_timezone(&Local).time(), at);
    }
}
