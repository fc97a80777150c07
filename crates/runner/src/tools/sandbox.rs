//! How an analyzer runs: in the checkout, with an environment of its own (none of
//! the runner's keys nor git's credentials), under a time limit (the whole process
//! group killed past it), a memory limit (`prlimit`), without network where the
//! OS allows (`unshare --net`), and with its output read up to a cap.

use super::reaper::{GroupReaper, keep_head, kill_group};
use super::wrappers::{installed, wrappers};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::process::Command;

/// Most bytes of a tool's standard output read; a tool printing more has failed.
pub const MAX_OUTPUT_BYTES: u64 = 16 * 1024 * 1024;

/// The limits every tool of a task runs under.
#[derive(Debug, Clone)]
pub struct Sandbox {
    pub dir: PathBuf,
    /// A directory of its own for the tools' `HOME` and caches.
    pub home: PathBuf,
    pub timeout: Duration,
    pub memory_mb: u32,
}

/// Why a tool gave no result.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("not installed on this runner")]
    Missing,
    #[error("ran past its {0} s limit and was stopped")]
    TimedOut(u64),
    #[error("printed more than {MAX_OUTPUT_BYTES} bytes")]
    TooMuchOutput,
    #[error("failed: {0}")]
    Failed(String),
}

/// What a tool printed.
#[derive(Debug)]
pub struct Ran {
    pub stdout: Vec<u8>,
    pub stderr: String,
    pub code: Option<i32>,
}

impl Sandbox {
    /// Whether tools run without network here (reported in the task's log).
    #[must_use]
    pub fn isolates_network() -> bool {
        wrappers().unshare.is_some()
    }

    /// Runs `argv` in the checkout; a non-zero exit is not an error (linters exit
    /// 1 when they find something): the caller reads the output.
    ///
    /// # Errors
    /// The program is missing, ran too long, or printed too much.
    pub async fn run(&self, argv: &[String]) -> Result<Ran, ToolError> {
        let (program, args) = argv.split_first().ok_or(ToolError::Missing)?;
        if !installed(&self.dir, program) {
            return Err(ToolError::Missing);
        }
        let found = wrappers();
        let mut full: Vec<String> = Vec::new();
        if let Some(unshare) = found.unshare {
            full.push("unshare".into());
            full.extend(unshare.iter().map(|a| (*a).to_owned()));
            full.push("--".into());
        }
        if found.prlimit {
            full.push("prlimit".into());
            // The data segment, not the address space: runtimes that reserve
            // large address ranges up front (V8, OCaml, Go) still start.
            full.push(format!(
                "--data={}",
                u64::from(self.memory_mb) * 1024 * 1024
            ));
            full.push("--".into());
        }
        full.push(program.clone());
        full.extend(args.iter().cloned());
        let _ = tokio::fs::create_dir_all(&self.home).await;
        let mut cmd = Command::new(&full[0]);
        cmd.args(&full[1..])
            .current_dir(&self.dir)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("XDG_CACHE_HOME", self.home.join(".cache"))
            .env("LANG", "C.UTF-8")
            // Semgrep: no telemetry, no version check (no network at review time).
            .env("SEMGREP_SEND_METRICS", "off")
            .env("SEMGREP_ENABLE_VERSION_CHECK", "0")
            // rustup and cargo find the toolchain and the cached crates there
            // (`HOME` is the tool's own).
            .envs(toolchain_homes())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        let mut child = cmd
            .spawn()
            .map_err(|e| ToolError::Failed(format!("could not start: {e}")))?;
        // Whatever happens next (done, failed, timed out, or this future dropped
        // when the task is stopped), the tool's whole process group goes.
        let _reaper = GroupReaper(child.id());
        let group = child.id();
        let mut stdout = child.stdout.take().ok_or(ToolError::Missing)?;
        let mut stderr = child.stderr.take().ok_or(ToolError::Missing)?;
        let read = async {
            let mut out = Vec::new();
            let mut err = Vec::new();
            let mut capped_out = (&mut stdout).take(MAX_OUTPUT_BYTES + 1);
            let (a, b) = tokio::join!(
                async {
                    let read = capped_out.read_to_end(&mut out).await;
                    // Past the cap the tool would block on a full pipe: stop it now.
                    if out.len() as u64 > MAX_OUTPUT_BYTES {
                        kill_group(group);
                    }
                    read
                },
                keep_head(&mut stderr, &mut err, 64 * 1024),
            );
            a.and(b).map(|_| (out, err))
        };
        let outcome = tokio::time::timeout(self.timeout, async {
            let (out, err) = read.await.map_err(|e| ToolError::Failed(e.to_string()))?;
            if out.len() as u64 > MAX_OUTPUT_BYTES {
                return Err(ToolError::TooMuchOutput);
            }
            let status = child
                .wait()
                .await
                .map_err(|e| ToolError::Failed(e.to_string()))?;
            Ok(Ran {
                stdout: out,
                stderr: String::from_utf8_lossy(&err).into_owned(),
                code: status.code(),
            })
        })
        .await;
        match outcome {
            Ok(result) => result,
            Err(_) => Err(ToolError::TimedOut(self.timeout.as_secs())),
        }
    }
}

/// `RUSTUP_HOME` and `CARGO_HOME` as the runner has them (or under its `HOME`):
/// paths, no secrets.
fn toolchain_homes() -> Vec<(&'static str, std::ffi::OsString)> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    [("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")]
        .into_iter()
        .filter_map(|(var, dir)| {
            std::env::var_os(var)
                .or_else(|| home.as_ref().map(|h| h.join(dir).into_os_string()))
                .map(|v| (var, v))
        })
        .collect()
}
