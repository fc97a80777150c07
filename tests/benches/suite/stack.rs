//! What the benchmarks run on: a PostgreSQL cluster of their own (durable: `fsync`
//! on, as production), a Redis server of their own, and the release server binary as
//! child processes, one per section on a database of its own.

use crate::helpers::TestApp;
use crate::process::{rss_kib, status_kib};
use crate::replica::Replica;
use crate::stores::{Postgres, Redis, free_port, pg_bin};
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

pub const ROOT_EMAIL: &str = crate::helpers::ROOT_EMAIL;
pub const ROOT_PASSWORD: &str = crate::helpers::ROOT_PASSWORD;

/// The cluster's settings: PostgreSQL's defaults for durability (`fsync`,
/// `synchronous_commit`, `full_page_writes` on), memory for the seeded lists, and
/// `pg_stat_statements` for the profile; autovacuum's and checkpoints' runs in the
/// cluster's log (`BENCH_KEEP=1` keeps it), to set beside a load's timeline.
pub const PG_SETTINGS: &[&str] = &[
    "log_autovacuum_min_duration=0",
    "log_checkpoints=on",
    "shared_buffers=1GB",
    "max_wal_size=4GB",
    "max_connections=300",
    "shared_preload_libraries=pg_stat_statements",
    "pg_stat_statements.track=all",
];

pub struct Stack {
    pub dir: PathBuf,
    pub pg: Postgres,
    pub redis: Redis,
    databases: u32,
}

impl Stack {
    pub fn start() -> Stack {
        let dir =
            std::env::temp_dir().join(format!("reviewd-bench-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).expect("the bench directory");
        let pg = Postgres::start_with(&dir, PG_SETTINGS);
        // As the test services: the queue is not where a review is recorded (PostgreSQL is).
        let redis = Redis::start(&dir, false);
        Stack {
            dir,
            pg,
            redis,
            databases: 0,
        }
    }

    /// A new empty database on the cluster; its URL.
    pub fn database(&mut self) -> String {
        self.databases += 1;
        let name = format!("bench{}", self.databases);
        self.psql("postgres", &format!("CREATE DATABASE {name}"));
        // What each statement cost, for the profile (`SELECT … FROM pg_stat_statements`).
        self.psql(&name, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.pg.port)
    }

    /// Runs SQL on `database`; the unaligned rows.
    pub fn psql(&self, database: &str, sql: &str) -> String {
        let out = Command::new(pg_bin().join("psql"))
            .args(["-h", "127.0.0.1", "-p", &self.pg.port.to_string()])
            .args(["-U", "postgres", "-d", database, "-qtAX"])
            .args(["-v", "ON_ERROR_STOP=1", "-c", sql])
            .output()
            .expect("psql runs");
        assert!(
            out.status.success(),
            "{sql}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// The server on `database_url`, with production's defaults except what `extra`
    /// sets; started and healthy.
    pub async fn server(&self, name: &str, database_url: &str, extra: &[(&str, String)]) -> Server {
        let port = free_port();
        let scratch = self.dir.join(name);
        let mut env: Vec<(String, String)> = [
            ("DATABASE_URL", database_url.to_owned()),
            ("QUEUE_STORE_URL", self.redis.url()),
            ("QUEUE_KEY_PREFIX", format!("{name}:")),
            (
                "AUTH_SECRET",
                "an-auth-secret-for-the-benchmarks-0123456789".to_owned(),
            ),
            ("ROOT_EMAIL", ROOT_EMAIL.to_owned()),
            ("ROOT_PASSWORD", ROOT_PASSWORD.to_owned()),
            ("HOSTNAME", "127.0.0.1".to_owned()),
            ("PORT", port.to_string()),
            ("APP_URL", "http://reviewd.test".to_owned()),
            ("NODE_ENV", "production".to_owned()),
            ("LOG_DIR", scratch.join("logs").display().to_string()),
            ("BACKUP_DIR", scratch.join("backups").display().to_string()),
            // Production's periodic jobs would add their own load to the figures.
            ("PERIODIC_JOBS_ENABLED", "false".to_owned()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        // `BENCH_SERVER_<NAME>=value` sets the server's `<NAME>` in every section, for
        // experiments (`BENCH_SERVER_LOG_LEVEL=warn`); it wins over the section's own.
        let overrides: Vec<(String, String)> = std::env::vars()
            .filter_map(|(k, v)| Some((k.strip_prefix("BENCH_SERVER_")?.to_owned(), v)))
            .collect();
        let extra = extra.iter().map(|(k, v)| ((*k).to_owned(), v.clone()));
        for (k, v) in extra.chain(overrides) {
            env.retain(|(name, _)| *name != k);
            env.push((k, v));
        }
        let mut replica = Replica::new(name, port, env, &self.dir);
        let first_start = replica.start().await;
        let app = TestApp {
            base_url: replica.base_url(),
            queue_prefix: format!("{name}:"),
            _db: None,
            database_url: database_url.to_owned(),
        };
        Server {
            replica,
            app,
            first_start,
        }
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        if std::env::var("BENCH_KEEP").is_ok_and(|v| v == "1") {
            println!("bench data and logs kept in {}", self.dir.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

pub struct Server {
    pub replica: Replica,
    pub app: TestApp,
    /// From the spawn to the first healthy answer, migrations included.
    pub first_start: Duration,
}

impl Server {
    pub fn pid(&self) -> u32 {
        self.replica.pid().expect("the server runs")
    }

    pub fn rss_kib(&self) -> u64 {
        rss_kib(self.pid()).unwrap_or(0)
    }

    /// Samples the server's resident set (whole and anonymous) every 20 ms until the
    /// sampler is stopped.
    pub fn rss_sampler(&self) -> RssSampler {
        let pid = self.pid();
        let (peak, peak_anon, stop) = (
            Arc::new(AtomicU64::new(0)),
            Arc::new(AtomicU64::new(0)),
            Arc::new(AtomicBool::new(false)),
        );
        let (p, a, s) = (peak.clone(), peak_anon.clone(), stop.clone());
        std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                p.fetch_max(rss_kib(pid).unwrap_or(0), Ordering::Relaxed);
                a.fetch_max(status_kib(pid, "RssAnon:").unwrap_or(0), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        RssSampler {
            peak,
            peak_anon,
            stop,
        }
    }
}

pub struct RssSampler {
    peak: Arc<AtomicU64>,
    peak_anon: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
}

impl RssSampler {
    /// The peaks seen: `12.3 MB anonymous (30.1 MB resident)`. Anonymous memory is what
    /// the server costs a system; the rest is the binary's pages, which the kernel reclaims.
    pub fn stop(self) -> String {
        self.stop.store(true, Ordering::Relaxed);
        format!(
            "{:.1} MB anonymous ({:.1} MB resident)",
            megabytes(self.peak_anon.load(Ordering::Relaxed)),
            megabytes(self.peak.load(Ordering::Relaxed))
        )
    }
}

/// The resident set's parts in MB: (anonymous, file-backed: the binary's pages).
pub fn rss_parts(pid: u32) -> (f64, f64) {
    (
        megabytes(status_kib(pid, "RssAnon:").unwrap_or(0)),
        megabytes(status_kib(pid, "RssFile:").unwrap_or(0)),
    )
}

/// KiB (as `/proc` counts) in MB (as the figures are).
pub fn megabytes(kib: u64) -> f64 {
    kib as f64 * 1024.0 / 1_000_000.0
}
