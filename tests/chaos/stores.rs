//! The stores a scenario owns: a PostgreSQL cluster and a Redis server of its own,
//! started, killed and restarted by the suite (never the shared ones on 5432/6379).

use crate::process::{children_of, signal, wait_gone};
use std::fs::File;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A port nothing listens on right now (the kernel's pick, released at once).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Appends to `path`: a restarted process keeps writing to the same log.
pub fn log_file(path: &Path) -> File {
    File::options()
        .create(true)
        .append(true)
        .open(path)
        .expect("a log file")
}

/// The last `lines` lines of a log file.
pub fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Calls `ready` until it says yes, at most `limit`.
fn wait_ready(what: &str, limit: Duration, ready: impl Fn() -> bool) {
    let deadline = Instant::now() + limit;
    while !ready() {
        assert!(
            Instant::now() < deadline,
            "{what} is not ready after {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `/usr/lib/postgresql/<newest version>/bin`.
pub fn pg_bin() -> PathBuf {
    let root = Path::new("/usr/lib/postgresql");
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir(root)
        .expect("PostgreSQL's server binaries under /usr/lib/postgresql (scripts/chaos.sh installs them)")
        .filter_map(|e| {
            let e = e.ok()?;
            let version = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("postgres").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions
        .pop()
        .expect("a PostgreSQL version with bin/postgres")
        .1
}

/// PostgreSQL refuses to run as root: its server tools run as `postgres`, from `/`
/// (which that user can always enter).
fn as_postgres(program: &Path) -> Command {
    let mut command = Command::new("runuser");
    command
        .args(["-u", "postgres", "--"])
        .arg(program)
        .current_dir("/");
    command
}

fn succeeded(command: &mut Command, what: &str, log: &Path) {
    let status = command
        .stdout(log_file(log))
        .stderr(log_file(log))
        .status()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(status.success(), "{what} failed:\n{}", tail(log, 20));
}

pub struct Postgres {
    bin: PathBuf,
    data: PathBuf,
    sockets: PathBuf,
    pub port: u16,
    pub log: PathBuf,
    /// `runuser`, whose child is the postmaster.
    server: Option<Child>,
    /// `-c` settings the postmaster starts with, each time.
    settings: Vec<String>,
}

/// Speed over durability against a machine crash only: WAL still reaches the kernel at
/// each commit, so a killed server loses no acknowledged transaction (with
/// `synchronous_commit=off` it would, and the suite would count the loss against the
/// server).
const CRASH_SAFE_ONLY: &[&str] = &["fsync=off", "full_page_writes=off"];

impl Postgres {
    /// A new cluster in `dir` with a `reviewd` database, running, durable against a
    /// killed process but not a machine crash (the chaos suite's).
    pub fn start(dir: &Path) -> Postgres {
        Self::start_with(dir, CRASH_SAFE_ONLY)
    }

    /// As [`Postgres::start`], with these `-c` settings (`name=value`) instead; when
    /// `dir` already holds a cluster (one kept between runs), that one started again.
    pub fn start_with(dir: &Path, settings: &[&str]) -> Postgres {
        let bin = pg_bin();
        let (data, sockets) = (dir.join("pg-data"), dir.join("pg-sockets"));
        let existing = data.join("PG_VERSION").exists();
        for d in [&data, &sockets] {
            std::fs::create_dir_all(d).expect("the PostgreSQL directories");
        }
        let log = dir.join("postgres.log");
        succeeded(
            Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .args([&data, &sockets]),
            "chown of the PostgreSQL directories",
            &log,
        );
        if !existing {
            succeeded(
                as_postgres(&bin.join("initdb")).arg("-D").arg(&data).args([
                    "--auth=trust",
                    "-U",
                    "postgres",
                    "-E",
                    "UTF8",
                    "--no-locale",
                    "--no-sync",
                ]),
                "initdb",
                &log,
            );
        }
        let mut pg = Postgres {
            bin,
            data,
            sockets,
            port: free_port(),
            log,
            server: None,
            settings: settings.iter().map(|s| (*s).to_owned()).collect(),
        };
        pg.restart();
        if !existing {
            succeeded(
                Command::new(pg.bin.join("createdb")).args([
                    "-h",
                    "127.0.0.1",
                    "-p",
                    &pg.port.to_string(),
                    "-U",
                    "postgres",
                    "reviewd",
                ]),
                "createdb",
                &pg.log,
            );
        }
        pg
    }

    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/reviewd", self.port)
    }

    /// Starts the server again on the same data directory and port (crash recovery
    /// after a kill), and waits until it accepts connections.
    pub fn restart(&mut self) {
        assert!(self.server.is_none(), "PostgreSQL is already running");
        let child = as_postgres(&self.bin.join("postgres"))
            .arg("-D")
            .arg(&self.data)
            .args(["-p", &self.port.to_string(), "-k"])
            .arg(&self.sockets)
            .args(["-c", "listen_addresses=127.0.0.1"])
            .args(self.settings.iter().flat_map(|s| ["-c", s.as_str()]))
            .stdin(Stdio::null())
            .stdout(log_file(&self.log))
            .stderr(log_file(&self.log))
            .spawn()
            .expect("postgres starts");
        self.server = Some(child);
        let (isready, port) = (self.bin.join("pg_isready"), self.port.to_string());
        wait_ready("PostgreSQL", Duration::from_secs(30), || {
            Command::new(&isready)
                .args([
                    "-q",
                    "-h",
                    "127.0.0.1",
                    "-p",
                    &port,
                    "-U",
                    "postgres",
                    "-t",
                    "1",
                ])
                .status()
                .is_ok_and(|s| s.success())
        });
    }

    /// A clean stop (`pg_ctl stop -m fast`: sessions ended, a checkpoint), waited for.
    pub fn stop(&mut self) {
        let Some(mut runuser) = self.server.take() else {
            return;
        };
        succeeded(
            as_postgres(&self.bin.join("pg_ctl"))
                .arg("stop")
                .arg("-D")
                .arg(&self.data)
                .args(["-m", "fast", "-w", "-t", "30"]),
            "pg_ctl stop",
            &self.log,
        );
        let _ = runuser.wait();
    }

    /// A crash: SIGKILL to the postmaster and every backend (each backend is its own
    /// process group, so a group kill would miss them; left alive, they would keep
    /// the old shared memory and stop the restart).
    pub fn kill(&mut self) {
        assert!(self.crash(), "PostgreSQL outlived SIGKILL");
    }

    /// [`Postgres::kill`]; whether every process went (never panics: also the drop).
    fn crash(&mut self) -> bool {
        let Some(mut runuser) = self.server.take() else {
            return true;
        };
        let postmaster = std::fs::read_to_string(self.data.join("postmaster.pid"))
            .ok()
            .and_then(|s| s.lines().next()?.trim().parse::<u32>().ok());
        if let Some(pm) = postmaster {
            let backends = children_of(pm);
            signal(pm, "KILL");
            for pid in &backends {
                signal(*pid, "KILL");
            }
            let gone = wait_gone(
                &[&[pm], backends.as_slice()].concat(),
                Duration::from_secs(10),
            );
            let _ = runuser.wait();
            gone
        } else {
            // Not started far enough to write its pid: take runuser and its child down.
            for pid in children_of(runuser.id()) {
                signal(pid, "KILL");
            }
            let _ = runuser.kill();
            let _ = runuser.wait();
            true
        }
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        self.crash();
    }
}

pub struct Redis {
    dir: PathBuf,
    pub port: u16,
    pub log: PathBuf,
    server: Option<Child>,
    /// Directories used so far: a restart "empty" starts in a new one.
    generation: u32,
}

impl Redis {
    /// A Redis server of its own; `appendonly`: whether it keeps the queue on disk.
    pub fn start(dir: &Path, appendonly: bool) -> Redis {
        let mut redis = Redis {
            dir: dir.to_owned(),
            port: free_port(),
            log: dir.join("redis.log"),
            server: None,
            generation: 0,
        };
        redis.restart(appendonly);
        redis
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    fn data_dir(&self) -> PathBuf {
        self.dir.join(format!("redis-{}", self.generation))
    }

    /// Starts it again on the same port and directory: with `appendonly` it finds
    /// what it had written.
    pub fn restart(&mut self, appendonly: bool) {
        assert!(self.server.is_none(), "Redis is already running");
        let data = self.data_dir();
        std::fs::create_dir_all(&data).expect("the Redis directory");
        let child = Command::new("redis-server")
            .args([
                "--port",
                &self.port.to_string(),
                "--bind",
                "127.0.0.1",
                "--dir",
            ])
            .arg(&data)
            .args([
                "--save",
                "",
                "--appendonly",
                if appendonly { "yes" } else { "no" },
            ])
            .stdin(Stdio::null())
            .stdout(log_file(&self.log))
            .stderr(log_file(&self.log))
            .spawn()
            .expect("redis-server starts (scripts/chaos.sh installs it)");
        self.server = Some(child);
        let port = self.port.to_string();
        wait_ready("Redis", Duration::from_secs(15), || {
            Command::new("redis-cli")
                .args(["-p", &port, "ping"])
                .output()
                .is_ok_and(|o| o.stdout.starts_with(b"PONG"))
        });
    }

    /// Killed and started again with nothing: a new directory, no persistence.
    pub fn restart_empty(&mut self) {
        self.kill();
        self.generation += 1;
        self.restart(false);
    }

    /// Killed (SIGKILL) and started again on the same port and directory, with its
    /// append-only file: what it had acknowledged is back.
    pub fn restart_persistent(&mut self) {
        self.kill();
        self.restart(true);
    }

    pub fn kill(&mut self) {
        if let Some(mut child) = self.server.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.kill();
    }
}
