//! The `reviewd` binary itself: it refuses to start on bad configuration with one
//! line naming the variable (never a secret), and serves health when all is well.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reviewd_testkit::{TestDb, test_redis_url};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const SECRET: &str = "a-test-auth-secret-that-is-long-enough-0123";

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("reviewd-startup-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn base_env(db_url: &str) -> Vec<(&'static str, String)> {
    let dir = scratch_dir("ok");
    vec![
        ("DATABASE_URL", db_url.to_owned()),
        ("QUEUE_STORE_URL", test_redis_url()),
        ("AUTH_SECRET", SECRET.to_owned()),
        ("LOG_DIR", dir.join("logs").display().to_string()),
        ("BACKUP_DIR", dir.join("backups").display().to_string()),
        ("HOSTNAME", "127.0.0.1".to_owned()),
        ("PORT", "0".to_owned()),
    ]
}

fn reviewd(env: &[(&'static str, String)]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_reviewd"));
    cmd.arg("serve")
        .env_clear()
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())));
    cmd
}

fn with(
    env: &[(&'static str, String)],
    key: &'static str,
    value: Option<&str>,
) -> Vec<(&'static str, String)> {
    let mut env: Vec<_> = env.iter().filter(|(k, _)| *k != key).cloned().collect();
    if let Some(v) = value {
        env.push((key, v.to_owned()));
    }
    env
}

/// Runs the binary and expects a quick exit 2 with one stderr line naming `var`.
fn assert_refuses(env: &[(&'static str, String)], var: &str) -> String {
    let out: Output = reviewd(env).stdout(Stdio::null()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(
        out.status.code(),
        Some(2),
        "exit status for {var}; stderr: {stderr}"
    );
    let lines: Vec<_> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line for {var}, got: {stderr}");
    assert!(
        lines[0].starts_with(&format!("reviewd: {var}")),
        "names {var}: {stderr}"
    );
    assert!(!stderr.contains(SECRET), "never prints the auth secret");
    stderr
}

#[test]
fn refuses_missing_required_variables() {
    let env = base_env("postgres://postgres:postgres@127.0.0.1:5432/postgres");
    for var in ["DATABASE_URL", "QUEUE_STORE_URL", "AUTH_SECRET"] {
        assert_refuses(&with(&env, var, None), var);
    }
}

#[test]
fn refuses_a_short_auth_secret_without_echoing_it() {
    let env = base_env("postgres://postgres:postgres@127.0.0.1:5432/postgres");
    let stderr = assert_refuses(
        &with(&env, "AUTH_SECRET", Some("too-short-secret")),
        "AUTH_SECRET",
    );
    assert!(!stderr.contains("too-short-secret"));
    assert!(stderr.contains("32"));
}

#[test]
fn refuses_unwritable_log_and_backup_dirs() {
    let env = base_env("postgres://postgres:postgres@127.0.0.1:5432/postgres");
    // A path below a regular file cannot be created, even by root.
    let file = scratch_dir("dirs").join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let blocked = file.join("sub").display().to_string();
    assert_refuses(&with(&env, "LOG_DIR", Some(&blocked)), "LOG_DIR");
    assert_refuses(&with(&env, "BACKUP_DIR", Some(&blocked)), "BACKUP_DIR");
}

#[test]
fn refuses_an_unreachable_database_without_printing_its_password() {
    let env = base_env("postgres://postgres:hunter2-db-password@127.0.0.1:1/reviewd");
    let stderr = assert_refuses(&env, "DATABASE_URL");
    assert!(!stderr.contains("hunter2-db-password"));
}

#[tokio::test]
async fn refuses_an_unreachable_queue_store() {
    let db = TestDb::new().await;
    let env = with(
        &base_env(db.url()),
        "QUEUE_STORE_URL",
        Some("redis://:queue-pass@127.0.0.1:1/0"),
    );
    let stderr = tokio::task::spawn_blocking(move || assert_refuses(&env, "QUEUE_STORE_URL"))
        .await
        .unwrap();
    assert!(!stderr.contains("queue-pass"));
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test]
async fn serves_health_logs_to_a_daily_file_and_stops_cleanly_on_sigterm() {
    let db = TestDb::new().await;
    let port = free_port();
    let logs = scratch_dir(&format!("sigterm-{port}")).join("logs");
    let env = with(&base_env(db.url()), "PORT", Some(&port.to_string()));
    let env = with(&env, "LOG_DIR", Some(&logs.display().to_string()));
    let mut child = reviewd(&env)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}/api/health");
    let client = reqwest::Client::new();
    let started = Instant::now();
    let body: serde_json::Value = loop {
        if let Ok(r) = client.get(&url).send().await {
            break r.json().await.unwrap();
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "server did not come up"
        );
        assert!(child.try_wait().unwrap().is_none(), "server exited early");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(body["data"]["status"], "ok");

    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(35);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "server ignored SIGTERM");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(status.success(), "graceful stop exits 0, got {status:?}");

    // Today's log file (UTC), JSON lines, with the start and the stop in it.
    let today = chrono::Utc::now().format("%Y-%m-%d");
    let file = logs.join(format!("reviewd.{today}.log"));
    let text = std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("{} should exist: {e}", file.display()));
    let events: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert!(
        events.iter().any(|e| e["message"] == "server.listening"),
        "{text}"
    );
    assert!(events.iter().all(|e| e["level"].is_string()));
}
