//! The real `reviewd-runner` binary against the real server: a local bare git
//! repository as the clone source, the fake GitLab and the fake AI provider.

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
fn runner_binary() -> PathBuf {
    static BINARY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BINARY.get_or_init(build_runner).clone()
}

fn build_runner() -> PathBuf {
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

fn git(dir: &Path, args: &[&str]) -> String {
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
fn bare_repository(root: &Path) -> (PathBuf, String, String) {
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
    (bare, base, head)
}

/// The MR as GitLab shows it, at the repository's real commits.
async fn mount_mr_at(gitlab: &FakeGitlab, base: &str, head: &str) {
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

struct RunnerProcess {
    child: Child,
    output: PathBuf,
}

impl RunnerProcess {
    /// Starts the binary (built off the runtime, so the server keeps answering).
    async fn start(app: &TestApp, key: &str, id: &str, work_dir: &Path, output: PathBuf) -> Self {
        let binary = tokio::task::spawn_blocking(runner_binary).await.unwrap();
        let log = std::fs::File::create(&output).unwrap();
        let child = Command::new(binary)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
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
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        Self { child, output }
    }

    fn output(&self) -> String {
        std::fs::read_to_string(&self.output).unwrap_or_default()
    }

    /// SIGTERM, then the exit status (within `within`). Waits without blocking the
    /// runtime the server under test runs on.
    async fn terminate(&mut self, within: Duration) -> std::process::ExitStatus {
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

async fn runner_state(app: &TestApp, id: &str) -> Value {
    let root = app.root().await;
    json(
        root.get(&format!("/api/runners/{id}")).await,
        StatusCode::OK,
    )
    .await["data"]
        .clone()
}

async fn wait_until_online(app: &TestApp, id: &str, runner: &RunnerProcess) {
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
struct World {
    app: TestApp,
    gitlab: FakeGitlab,
    scratch: PathBuf,
    head: String,
}

impl World {
    async fn new(ai: &wiremock::MockServer, extra: &[(&str, String)]) -> World {
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

#[tokio::test]
async fn the_runner_binary_clones_reviews_and_reports_and_the_server_posts_its_comments() {
    let ai = fake_ai(review_answer).await;
    // The server's own workers run too: a fresh task is left to the capable runner.
    let World {
        app,
        gitlab,
        scratch,
        head,
    } = World::new(&ai, &[("RUNNER_CLAIM_GRACE_MS", "30000".to_owned())]).await;
    let key = api_key(&app).await;
    let work_dir = scratch.join("workspaces");
    let mut runner = RunnerProcess::start(
        &app,
        &key,
        "e2e-runner",
        &work_dir,
        scratch.join("runner.log"),
    )
    .await;
    wait_until_online(&app, "e2e-runner", &runner).await;

    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    assert_eq!(task["status"], "completed", "{task}\n{}", runner.output());

    // The runner asked the model with the diff it computed from the clone (the
    // server sends no diff to a runner).
    let prompts: Vec<String> = ai
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| r.url.path() == "/v1/chat/completions")
        .filter(|r| !reviewd_testkit::is_summary_call(r))
        .map(|r| {
            assert_eq!(
                r.headers.get("authorization").and_then(|v| v.to_str().ok()),
                Some("Bearer sk-fake"),
                "the runner uses the task's AI key"
            );
            reviewd_testkit::prompt_of(r)
        })
        .collect();
    assert_eq!(prompts.len(), 1, "{prompts:?}");
    assert!(prompts[0].contains("File under review: src/app.rs"));
    assert!(prompts[0].contains("let x = foo().unwrap();"));
    assert!(
        prompts[0].contains("[definition] src/foo.rs lines 1-3 `foo`")
            && prompts[0].contains("    2     None"),
        "the runner read the definition of foo from its clone: {}",
        prompts[0]
    );
    assert!(prompts[0].contains("[enclosing] src/app.rs lines 1-4 `main`"));

    // Placed and posted by the server exactly as its own reviews are.
    let discussions = posted(&gitlab, "POST", "/discussions").await;
    let mut lines: Vec<u64> = discussions
        .iter()
        .map(|d| d["position"]["new_line"].as_u64().unwrap())
        .collect();
    lines.sort_unstable();
    assert_eq!(lines, vec![2, 2], "{discussions:?}");
    assert!(
        discussions
            .iter()
            .all(|d| d["position"]["head_sha"] == head.as_str())
    );
    let notes = posted(&gitlab, "POST", "/notes").await;
    assert_eq!(notes.len(), 1, "one summary note");

    let review_id = task["reviewId"].as_str().unwrap();
    assert_eq!(
        app.sql(&format!(
            "SELECT provider FROM ai_call_logs WHERE review_id = '{review_id}'"
        )),
        "runner:e2e-runner",
        "the review was done by the runner, not the server's workers"
    );
    let task_id = task["id"].as_str().unwrap();
    let metrics: Value = serde_json::from_str(&app.sql(&format!(
        "SELECT metrics FROM review_tasks WHERE id = '{task_id}'"
    )))
    .unwrap();
    assert_eq!(
        metrics["tokensUsed"], 120,
        "the file's call alone: one file needs no summary call: {metrics}"
    );
    let root = app.root().await;
    let rounds = json(
        root.get(&format!("/api/reviews/{review_id}/rounds")).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        rounds["data"]["rounds"][0]["context"]["source"], "checkout",
        "what the runner's context read is recorded with the round: {rounds}"
    );
    let files = json(
        root.get(&format!("/api/reviews/{review_id}/files")).await,
        StatusCode::OK,
    )
    .await;
    assert!(
        files["data"]["files"][0]["context"]["pieces"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["kind"] == "definition" && p["path"] == "src/foo.rs"),
        "{files}"
    );
    assert!(metrics["durationMs"].as_u64().unwrap() >= metrics["reviewMs"].as_u64().unwrap());
    let phases = app.sql(&format!(
        "SELECT string_agg(message, chr(10) ORDER BY line_no) FROM review_task_logs WHERE task_id = '{task_id}'"
    ));
    assert!(phases.contains("fetching"), "{phases}");
    assert!(phases.contains("model fake-model answered"), "{phases}");
    assert!(
        phases.contains("reviewed 1 file(s), 2 comment(s)"),
        "{phases}"
    );

    let state = runner_state(&app, "e2e-runner").await;
    assert_eq!(state["totalJobsCompleted"], 1, "{state}");
    assert_eq!(state["totalJobsFailed"], 0, "{state}");
    assert_eq!(
        state["tags"],
        json!(["e2e", "linux"]),
        "from RUNNER_TAGS, sorted"
    );

    // The workspace is gone; no secret reached the runner's output or the task log.
    let left: Vec<_> = std::fs::read_dir(&work_dir).unwrap().collect();
    assert!(left.is_empty(), "workspace left behind: {left:?}");
    let output = runner.output();
    for secret in ["sk-fake", key.as_str(), "glpat-pipeline"] {
        assert!(
            !output.contains(secret),
            "runner output shows a secret:\n{output}"
        );
        assert!(
            !phases.contains(secret),
            "task log shows a secret:\n{phases}"
        );
    }

    // SIGTERM: a clean exit and the runner shown offline.
    let stopping = Instant::now();
    let status = runner.terminate(Duration::from_secs(15)).await;
    assert!(
        stopping.elapsed() < Duration::from_secs(5),
        "an idle runner stops at once:\n{}",
        runner.output()
    );
    assert!(status.success(), "{status:?}\n{}", runner.output());
    assert_eq!(runner_state(&app, "e2e-runner").await["status"], "offline");
    let _ = std::fs::remove_dir_all(&scratch);
}

/// A suggestion on the added line 2 (fits) and one on the context line 3 (moved to
/// line 2 by the placement, so stripped).
fn suggesting_answer(_prompt: &str) -> Value {
    json!({ "summary": "Adds an unwrap.", "comments": [
        { "line": 2, "severity": "error", "message": "unwrap() panics when foo fails; return the error instead.",
          "suggestion": { "startLine": 2, "endLine": 2, "code": "    let x = foo()?;" } },
        { "line": 3, "severity": "info", "message": "Consider logging before run().",
          "suggestion": { "startLine": 3, "endLine": 3, "code": "    log(); run();" } },
    ]})
}

#[tokio::test]
async fn a_runners_suggestion_is_posted_as_the_servers_own() {
    let ai = fake_ai(suggesting_answer).await;
    let World {
        app,
        gitlab,
        scratch,
        ..
    } = World::new(&ai, &[("REVIEW_WORKERS_ENABLED", "false".to_owned())]).await;
    let key = api_key(&app).await;
    let runner = RunnerProcess::start(
        &app,
        &key,
        "suggesting",
        &scratch.join("workspaces"),
        scratch.join("runner.log"),
    )
    .await;
    wait_until_online(&app, "suggesting", &runner).await;

    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    assert_eq!(task["status"], "completed", "{task}\n{}", runner.output());

    let mut bodies: Vec<String> = posted(&gitlab, "POST", "/discussions")
        .await
        .iter()
        .map(|d| d["body"].as_str().unwrap().to_owned())
        .collect();
    bodies.sort();
    assert_eq!(bodies.len(), 2, "{bodies:?}");
    assert!(
        bodies[0].starts_with("**error**: unwrap() panics")
            && bodies[0].ends_with("-->\n\n```suggestion:-0+0\n    let x = foo()?;\n```"),
        "{}",
        bodies[0]
    );
    assert!(
        bodies[1].starts_with("**info**: Consider logging") && !bodies[1].contains("```suggestion"),
        "a comment moved off its line goes without its suggestion: {}",
        bodies[1]
    );
    let review = task["reviewId"].as_str().unwrap();
    let comments = json(
        app.root()
            .await
            .get(&format!("/api/reviews/{review}/comments"))
            .await,
        StatusCode::OK,
    )
    .await;
    let suggestions: Vec<&Value> = comments["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["suggestion"])
        .collect();
    assert!(
        suggestions
            .contains(&&json!({ "startLine": 2, "endLine": 2, "code": "    let x = foo()?;" }))
            && suggestions.contains(&&Value::Null),
        "{suggestions:?}"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

#[tokio::test]
async fn a_runner_stopped_mid_task_reports_it_failed_and_another_runner_finishes_it() {
    let ai = fake_ai(review_answer).await;
    // The first question hangs: the first runner is mid-review when it is stopped.
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(500).set_delay(Duration::from_secs(30)))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&ai)
        .await;
    let World {
        app,
        scratch,
        // Kept alive: a dropped fake goes back to wiremock's pool and serves
        // another test.
        gitlab: _gitlab,
        ..
    } = World::new(&ai, &[("REVIEW_WORKERS_ENABLED", "false".to_owned())]).await;
    let key = api_key(&app).await;
    let work_dir = scratch.join("workspaces");
    let mut first =
        RunnerProcess::start(&app, &key, "first", &work_dir, scratch.join("first.log")).await;
    wait_until_online(&app, "first", &first).await;
    let task_id = send_webhook(&app, &fixture()).await;
    let mut phase = String::new();
    for _ in 0..300 {
        phase = app.sql(&format!(
            "SELECT coalesce(runner_phase, '') FROM review_tasks WHERE id = '{task_id}'"
        ));
        if phase == "reviewing" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(phase, "reviewing", "{}", first.output());

    // RUNNER_SHUTDOWN_GRACE_SECS is 1 here: the hanging review is cut short.
    let stopping = Instant::now();
    let status = first.terminate(Duration::from_secs(20)).await;
    assert!(status.success(), "{status:?}\n{}", first.output());
    assert!(
        stopping.elapsed() < Duration::from_secs(10),
        "{:?}",
        stopping.elapsed()
    );
    let state = runner_state(&app, "first").await;
    assert_eq!(state["status"], "offline", "{state}");
    assert_eq!(state["totalJobsFailed"], 1, "{state}");
    let logs = app.sql(&format!(
        "SELECT string_agg(message, chr(10) ORDER BY line_no) FROM review_task_logs WHERE task_id = '{task_id}'"
    ));
    assert!(
        logs.contains("failed: the runner was stopped before the task finished"),
        "{logs}"
    );
    assert_eq!(
        app.sql(&format!(
            "SELECT status || ' ' || attempts FROM review_tasks WHERE id = '{task_id}'"
        )),
        "queued 1",
        "given back for another attempt"
    );

    let second =
        RunnerProcess::start(&app, &key, "second", &work_dir, scratch.join("second.log")).await;
    let task = wait_for(&app, &task_id).await;
    assert_eq!(task["status"], "completed", "{task}\n{}", second.output());
    assert_eq!(runner_state(&app, "second").await["totalJobsCompleted"], 1);
    let _ = std::fs::remove_dir_all(&scratch);
}

#[tokio::test]
async fn a_clone_that_fails_is_reported_and_retried_until_the_task_fails_with_git_s_reason() {
    let ai = fake_ai(review_answer).await;
    let World {
        app,
        scratch,
        gitlab: _gitlab,
        ..
    } = World::new(&ai, &[("REVIEW_WORKERS_ENABLED", "false".to_owned())]).await;
    // The repository is gone from where the project says it is.
    app.sql(&format!(
        "UPDATE projects SET web_url = 'file://{}'",
        scratch.join("missing.git").display()
    ));
    let key = api_key(&app).await;
    let work_dir = scratch.join("workspaces");
    let runner =
        RunnerProcess::start(&app, &key, "unlucky", &work_dir, scratch.join("r.log")).await;
    wait_until_online(&app, "unlucky", &runner).await;
    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    assert_eq!(task["status"], "failed", "{task}\n{}", runner.output());
    assert_eq!(task["attempts"], 3, "every attempt used");
    assert!(
        task["errorMessage"]
            .as_str()
            .unwrap()
            .contains("git fetch failed"),
        "{task}"
    );
    let state = runner_state(&app, "unlucky").await;
    assert_eq!(state["totalJobsFailed"], 3, "{state}");
    assert_eq!(state["totalJobsCompleted"], 0);
    assert!(
        ai.received_requests().await.unwrap().is_empty(),
        "nothing to review"
    );
    let review = app.sql(&format!(
        "SELECT status FROM reviews WHERE id = '{}'",
        task["reviewId"].as_str().unwrap_or_default()
    ));
    assert_eq!(review, "failed");
    let left: Vec<_> = std::fs::read_dir(&work_dir).unwrap().collect();
    assert!(
        left.is_empty(),
        "workspaces removed after failures too: {left:?}"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}
