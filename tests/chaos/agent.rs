//! One runner agent: the real `reviewd-runner` binary as a child process, polling a
//! replica for tasks, cloning the scenario's repository and asking the fake AI.

use crate::stores::{log_file, tail};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// `RUNNER_BIN`, else the runner next to the server binary (`REVIEWD_BIN`'s folder,
/// else the debug build in `CARGO_TARGET_DIR`).
pub fn runner_binary() -> PathBuf {
    let bin = std::env::var_os("RUNNER_BIN").map_or_else(
        || {
            crate::replica::server_binary()
                .parent()
                .map(|dir| dir.join("reviewd-runner"))
                .unwrap_or_default()
        },
        PathBuf::from,
    );
    assert!(
        bin.exists(),
        "no runner binary at {} (build it with `cargo build -p reviewd-runner`, or set RUNNER_BIN)",
        bin.display()
    );
    bin
}

pub struct Agent {
    /// Its runner id (`RUNNER_NAME`), as the server lists it.
    pub name: String,
    env: Vec<(String, String)>,
    pub log: PathBuf,
    child: Option<Child>,
}

impl Agent {
    /// Not started yet: it will serve `server` with `key`, up to `jobs` tasks at once.
    pub fn new(name: &str, server: &str, key: &str, jobs: usize, dir: &Path) -> Agent {
        let env = [
            ("RUNNER_SERVER_URL", server.to_owned()),
            ("RUNNER_TOKEN", key.to_owned()),
            ("RUNNER_NAME", name.to_owned()),
            ("RUNNER_MAX_CONCURRENT_JOBS", jobs.to_string()),
            (
                "RUNNER_WORK_DIR",
                dir.join(format!("{name}-work")).display().to_string(),
            ),
            ("RUNNER_POLL_INTERVAL_MS", "200".to_owned()),
            ("RUNNER_HEARTBEAT_INTERVAL_MS", "500".to_owned()),
            ("RUNNER_HTTP_TIMEOUT_SECS", "10".to_owned()),
            ("RUST_LOG", "info".to_owned()),
        ];
        Agent {
            name: name.to_owned(),
            env: env.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
            log: dir.join(format!("{name}.log")),
            child: None,
        }
    }

    pub fn start(&mut self) {
        assert!(self.child.is_none(), "{} is already running", self.name);
        let child = Command::new(runner_binary())
            .env_clear()
            .envs(
                ["PATH", "HOME"]
                    .iter()
                    .filter_map(|k| Some((k, std::env::var_os(k)?))),
            )
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(log_file(&self.log))
            .stderr(log_file(&self.log))
            .spawn()
            .expect("the runner binary starts");
        self.child = Some(child);
    }

    /// `kill -9`: no report of the tasks it holds, no deregistration.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub fn tail(&self, lines: usize) -> String {
        tail(&self.log, lines)
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        self.kill();
    }
}
