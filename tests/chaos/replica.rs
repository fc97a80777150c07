//! One replica: the real `reviewd` binary as a child process, on a fixed port (so a
//! restart keeps its consumer name, `{machine name}-{PORT}`), with its output in a
//! log file a failing scenario shows the end of.

use crate::process::signal;
use crate::stores::{log_file, tail};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `REVIEWD_BIN`, else the debug build in `CARGO_TARGET_DIR` (or the workspace's
/// `target`).
pub fn server_binary() -> PathBuf {
    let bin = std::env::var_os("REVIEWD_BIN").map_or_else(
        || {
            let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
                || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"),
                PathBuf::from,
            );
            target.join("debug/reviewd")
        },
        PathBuf::from,
    );
    assert!(
        bin.exists(),
        "no server binary at {} (build it with `cargo build -p reviewd-server`, or set REVIEWD_BIN)",
        bin.display()
    );
    bin
}

pub struct Replica {
    pub name: String,
    pub port: u16,
    bin: PathBuf,
    env: Vec<(String, String)>,
    pub log: PathBuf,
    child: Option<Child>,
}

impl Replica {
    /// Not started yet; `env` is its whole environment besides `PATH` and `HOME`.
    pub fn new(name: &str, port: u16, env: Vec<(String, String)>, dir: &Path) -> Replica {
        Replica {
            name: name.to_owned(),
            port,
            bin: server_binary(),
            env,
            log: dir.join(format!("{name}.log")),
            child: None,
        }
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Starts it and waits until `/api/health` answers (migrations run first); the
    /// time from the spawn to that answer.
    pub async fn start(&mut self) -> Duration {
        assert!(self.child.is_none(), "{} is already running", self.name);
        let mut command = Command::new(&self.bin);
        command
            .arg("serve")
            // Nothing from the suite's own environment (a DATABASE_URL, a RUST_LOG)
            // leaks in.
            .env_clear()
            .envs(
                ["PATH", "HOME"]
                    .iter()
                    .filter_map(|k| Some((k, std::env::var_os(k)?))),
            )
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(log_file(&self.log))
            .stderr(log_file(&self.log));
        let spawned = Instant::now();
        self.child = Some(command.spawn().expect("the server binary starts"));
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(2))
            .build()
            .expect("an HTTP client");
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let health = client
                .get(format!("{}/api/health", self.base_url()))
                .send()
                .await;
            if health.is_ok_and(|r| r.status().is_success()) {
                return spawned.elapsed();
            }
            if let Some(Ok(Some(status))) = self.child.as_mut().map(Child::try_wait) {
                panic!("{} exited with {status}:\n{}", self.name, self.tail(30));
            }
            assert!(
                Instant::now() < deadline,
                "{} is not healthy after 60 s:\n{}",
                self.name,
                self.tail(30)
            );
            // Short: the benchmarks time the start to the first healthy answer.
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// `kill -9`: no drain, no goodbye.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// The running process's id (`None` once killed).
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// SIGSTOP: the process stays, holding its connections and tasks, and does nothing.
    pub fn freeze(&self) {
        if let Some(child) = &self.child {
            signal(child.id(), "STOP");
        }
    }

    /// SIGCONT: it runs on as if no time had passed (its timers have, though).
    pub fn thaw(&self) {
        if let Some(child) = &self.child {
            signal(child.id(), "CONT");
        }
    }

    pub fn tail(&self, lines: usize) -> String {
        tail(&self.log, lines)
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.kill();
    }
}
