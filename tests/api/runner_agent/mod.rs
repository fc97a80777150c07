//! The real `reviewd-runner` binary against the real server: a local bare git
//! repository as the clone source, the fake GitLab and the fake AI provider. A task
//! reviewed end to end (`review`), and a runner stopped or a clone failing (`failures`);
//! the world they run in is here.

mod failures;
mod review;
mod tools;

use crate::helpers::{TestApp, json};
use crate::review_pipeline::{
    APP_DIFF_1, app_with_ai, fake_ai, file, fixture, mount_posting, posted, review_answer,
    send_webhook, setup_project, wait_for,
};
use crate::runners::api_key;
use reqwest::StatusCode;
use reviewd_testkit::FakeGitlab;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

/// Builds the runner binary (a no-op when it is up to date) once per test process
/// and returns its path. Cargo does not build another package's binary for this
/// test crate by itself.
pub(super) fn runner_binary() -> PathBuf {
    static BINARY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BINARY.get_or_init(build_runner).clone()
}

pub(super) fn build_runner() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "-p",
            "reviewd-runner",
            "--bin",
            "reviewd-runner",
            "--message-format=json",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stderr(Stdio::inherit())
        .output()
        .unwrap();
    assert!(out.status.success(), "building reviewd-runner failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("cargo names the reviewd-runner executable")
}

/// `work` cloned bare as `root/svc.git`: the repository a runner fetches from.
pub(super) fn bare_clone(root: &Path, work: &Path) -> PathBuf {
    let bare = root.join("svc.git");
    git(
        root,
        &[
            "clone",
            "--quiet",
            "--bare",
            work.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    bare
}

pub(super) fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "dev")
        .env("GIT_AUTHOR_EMAIL", "dev@example.com")
        .env("GIT_COMMITTER_NAME", "dev")
        .env("GIT_COMMITTER_EMAIL", "dev@example.com")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A bare repository with two commits whose diff is `APP_DIFF_1`; returns its
/// path and the (base, head) SHAs. The head is the tip of a branch, the base is
/// buried under a later commit on main, so a depth-1 fetch of it by SHA is tested.
pub(super) fn bare_repository(root: &Path) -> (PathBuf, String, String) {
    let work = root.join("work");
    std::fs::create_dir_all(work.join("src")).unwrap();
    git(&work, &["init", "--quiet", "--initial-branch=main"]);
    std::fs::write(work.join("src/app.rs"), "fn main() {\n    run();\n}\n").unwrap();
    std::fs::write(work.join("README.md"), "svc\n").unwrap();
    // What the change calls, defined in a file the MR does not touch.
    std::fs::write(
        work.join("src/foo.rs"),
        "pub fn foo() -> Option<u32> {\n    None\n}\n",
    )
    .unwrap();
    git(&work, &["add", "."]);
    git(&work, &["commit", "--quiet", "-m", "base"]);
    let base = git(&work, &["rev-parse", "HEAD"]);
    git(&work, &["checkout", "--quiet", "-b", "runner"]);
    std::fs::write(
        work.join("src/app.rs"),
        "fn main() {\n    let x = foo().unwrap();\n    run();\n}\n",
    )
    .unwrap();
    git(&work, &["commit", "--quiet", "-am", "use foo"]);
    let head = git(&work, &["rev-parse", "HEAD"]);
    git(&work, &["checkout", "--quiet", "main"]);
    std::fs::write(work.join("README.md"), "svc, later\n").unwrap();
    git(&work, &["commit", "--quiet", "-am", "later on main"]);
    let bare = bare_clone(root, &work);
    (bare, base, head)
}

/// The MR as GitLab shows it, at the repository's real commits.
pub(super) async fn mount_mr_at(gitlab: &FakeGitlab, base: &str, head: &str) {
    let mut mr = crate::review_pipeline::mr(head);
    mr["diff_refs"] = json!({ "base_sha": base, "start_sha": base, "head_sha": head });
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/1/merge_requests/1"))
        .respond_with(ResponseTemplate::new(200).set_body_json(mr))
        .mount(&gitlab.server)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/1/merge_requests/1/diffs"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!([file("src/app.rs", APP_DIFF_1)]))
                .insert_header("x-next-page", ""),
        )
        .mount(&gitlab.server)
        .await;
}

pub(super) struct RunnerProcess {
    pub(super) child: Child,
    pub(super) output: PathBuf,
}

impl RunnerProcess {
    /// Starts the binary (built off the runtime, so the server keeps answering).
    pub(super) async fn start(
        app: &TestApp,
        key: &str,
        id: &str,
        work_dir: &Path,
        output: PathBuf,
    ) -> Self {
        let path = std::env::var("PATH").unwrap_or_default();
        Self::start_with_path(app, key, id, work_dir, output, (&path, &[])).await
    }

    /// As [`RunnerProcess::start`], with `path` as the runner's `PATH` (where it
    /// finds the analyzers) and `extra` variables.
    pub(super) async fn start_with_path(
        app: &TestApp,
        key: &str,
        id: &str,
        work_dir: &Path,
        output: PathBuf,
        (path, extra): (&str, &[(&str, &str)]),
    ) -> Self {
        let binary = tokio::task::spawn_blocking(runner_binary).await.unwrap();
        let log = std::fs::File::create(&output).unwrap();
        let child = Command::new(binary)
            .env_clear()
            .env("PATH", path)
            .env("RUNNER_SERVER_URL", &app.base_url)
            .env("RUNNER_TOKEN", key)
            .env("RUNNER_NAME", id)
            .env("RUNNER_MAX_CONCURRENT_JOBS", "2")
            .env("RUNNER_TAGS", "linux,e2e")
            .env("RUNNER_WORK_DIR", work_dir)
            .env("RUNNER_POLL_INTERVAL_MS", "200")
            .env("RUNNER_HEARTBEAT_INTERVAL_MS", "500")
            .env("RUNNER_HTTP_TIMEOUT_SECS", "10")
            .env("RUNNER_SHUTDOWN_GRACE_SECS", "1")
            .env("RUST_LOG", "info")
            .envs(extra.iter().copied())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        Self { child, output }
    }

    pub(super) fn output(&self) -> String {
        std::fs::read_to_string(&self.output).unwrap_or_default()
    }

    /// SIGTERM, then the exit status (within `within`). Waits without blocking the
    /// runtime the server under test runs on.
    pub(super) async fn terminate(&mut self, within: Duration) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        assert!(
            Command::new("kill")
                .args(["-TERM", &pid])
                .status()
                .unwrap()
                .success()
        );
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the runner did not stop on SIGTERM:\n{}",
                self.output()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for RunnerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(super) async fn runner_state(app: &TestApp, id: &str) -> Value {
    let root = app.root().await;
    json(
        root.get(&format!("/api/runners/{id}")).await,
        StatusCode::OK,
    )
    .await["data"]
        .clone()
}

pub(super) async fn wait_until_online(app: &TestApp, id: &str, runner: &RunnerProcess) {
    let root = app.root().await;
    for _ in 0..200 {
        let r = root.get(&format!("/api/runners/{id}")).await;
        if r.status() == StatusCode::OK {
            let body: Value = r.json().await.unwrap();
            if body["data"]["status"] == "online" {
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the runner never registered:\n{}", runner.output());
}

/// The server, GitLab and a bare repository the project clones from.
pub(super) struct World {
    pub(super) app: TestApp,
    pub(super) gitlab: FakeGitlab,
    pub(super) scratch: PathBuf,
    pub(super) head: String,
}

impl World {
    pub(super) async fn new(ai: &wiremock::MockServer, extra: &[(&str, String)]) -> World {
        let scratch =
            std::env::temp_dir().join(format!("reviewd-e2e-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&scratch).unwrap();
        let (bare, base, head) = bare_repository(&scratch);
        let gitlab = FakeGitlab::start("glpat-pipeline").await;
        gitlab.with_projects(1, "svc").await;
        mount_posting(&gitlab).await;
        mount_mr_at(&gitlab, &base, &head).await;
        let app = app_with_ai(ai, extra).await;
        setup_project(&app, &gitlab).await;
        // The clone source: the project's address is the local bare repository.
        app.sql(&format!(
            "UPDATE projects SET web_url = 'file://{}'",
            bare.display()
        ));
        World {
            app,
            gitlab,
            scratch,
            head,
        }
    }
}
