use crate::helpers::{TestApp, expect_error, json};
use reqwest::StatusCode;
use serde_json::Value;
use std::time::{Duration, Instant};

async fn wait_until(what: &str, timeout: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn monitoring_needs_auth_and_collect_adds_a_sample_to_each_history() {
    let app = TestApp::spawn().await;
    let anonymous = app.client();
    for path in [
        "/api/monitoring/overview",
        "/api/monitoring/system",
        "/api/monitoring/database",
        "/api/monitoring/api",
    ] {
        expect_error(
            anonymous.get(path).await,
            StatusCode::UNAUTHORIZED,
            "UNAUTHORIZED",
        )
        .await;
    }
    expect_error(
        anonymous.post("/api/monitoring/collect", Value::Null).await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    )
    .await;

    let viewer = app.user_with_role("viewer").await;
    let empty = json(viewer.get("/api/monitoring/system").await, StatusCode::OK).await;
    assert_eq!(empty["data"]["items"].as_array().unwrap().len(), 0);
    assert_eq!(empty["meta"]["pagination"]["total"], 0);

    let collected = json(
        viewer.post("/api/monitoring/collect", Value::Null).await,
        StatusCode::OK,
    )
    .await;
    let system = &collected["data"]["system"];
    assert!(system["cpuCount"].as_u64().unwrap() >= 1, "{system}");
    assert!(system["memoryTotalBytes"].as_u64().unwrap() > 0);
    assert!(system["memoryUsedBytes"].as_u64().unwrap() > 0);
    assert!(system["processMemoryBytes"].as_u64().unwrap() > 0);
    assert!(system["uptimeSeconds"].as_u64().unwrap() > 0);
    let cpu = system["cpuUsagePercent"].as_f64().unwrap();
    assert!((0.0..=100.0).contains(&cpu));
    let database = &collected["data"]["database"];
    assert!(
        database["totalConnections"].as_u64().unwrap() >= 1,
        "{database}"
    );
    assert!(database["databaseSizeBytes"].as_u64().unwrap() > 1_000_000);
    assert!(database["maxConnections"].as_u64().unwrap() >= 1);
    assert_eq!(
        database["poolSize"], 4,
        "DATABASE_POOL_SIZE of the test app"
    );

    for _ in 0..2 {
        json(
            viewer.post("/api/monitoring/collect", Value::Null).await,
            StatusCode::OK,
        )
        .await;
    }
    for path in ["/api/monitoring/system", "/api/monitoring/database"] {
        let page = json(
            viewer.get(&format!("{path}?pageSize=2")).await,
            StatusCode::OK,
        )
        .await;
        let items = page["data"]["items"].as_array().unwrap();
        assert_eq!(items.len(), 2, "{path}");
        assert_eq!(page["meta"]["pagination"]["total"], 3);
        assert_eq!(page["meta"]["pagination"]["totalPages"], 2);
        let (newer, older) = (
            items[0]["collectedAt"].as_str().unwrap(),
            items[1]["collectedAt"].as_str().unwrap(),
        );
        assert!(newer >= older, "newest first: {newer} then {older}");
        let last = json(
            viewer.get(&format!("{path}?pageSize=2&page=2")).await,
            StatusCode::OK,
        )
        .await;
        assert_eq!(last["data"]["items"].as_array().unwrap().len(), 1);
        let future = json(
            viewer
                .get(&format!("{path}?startDate=2999-01-01T00:00:00Z"))
                .await,
            StatusCode::OK,
        )
        .await;
        assert_eq!(future["meta"]["pagination"]["total"], 0);
        expect_error(
            viewer.get(&format!("{path}?startDate=yesterday")).await,
            StatusCode::BAD_REQUEST,
            "INVALID_QUERY",
        )
        .await;
        expect_error(
            viewer.get(&format!("{path}?pageSize=zero")).await,
            StatusCode::BAD_REQUEST,
            "INVALID_QUERY",
        )
        .await;
    }
}

#[tokio::test]
async fn api_statistics_cover_every_replica_with_success_and_error_rates() {
    let first = TestApp::spawn().await;
    let second = TestApp::spawn_sharing(&first, &[]).await;
    let root = first.root().await;
    let id = uuid::Uuid::new_v4();
    for _ in 0..3 {
        json(root.get("/api/projects").await, StatusCode::OK).await;
    }
    for _ in 0..2 {
        expect_error(
            root.get(&format!("/api/reviews/{id}")).await,
            StatusCode::NOT_FOUND,
            "NOT_FOUND",
        )
        .await;
    }
    // Requests to the other replica reach the statistics once it flushes its counts.
    let other = second.root().await;
    for _ in 0..4 {
        json(other.get("/api/projects").await, StatusCode::OK).await;
    }
    json(
        other.post("/api/monitoring/collect", Value::Null).await,
        StatusCode::OK,
    )
    .await;

    let stats = json(root.get("/api/monitoring/api").await, StatusCode::OK).await;
    let data = &stats["data"];
    let route = |template: &str| -> Value {
        data["routes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["route"] == template && r["method"] == "GET")
            .cloned()
            .unwrap_or_else(|| panic!("{template} in {data}"))
    };
    let projects = route("/api/projects");
    assert_eq!(projects["requests"], 7, "3 on one replica, 4 on the other");
    assert_eq!(projects["errorRate"], 0.0);
    assert_eq!(projects["successRate"], 100.0);
    let reviews = route("/api/reviews/{review_id}");
    assert_eq!(reviews["requests"], 2);
    assert_eq!(reviews["clientErrors"], 2);
    assert_eq!(reviews["errorRate"], 100.0);
    assert!(data["routes"].to_string().contains("/api/auth/login"));
    assert!(
        !data.to_string().contains(&id.to_string()),
        "templates only"
    );
    let total = data["totalRequests"].as_u64().unwrap();
    let ok = data["successfulRequests"].as_u64().unwrap();
    let errors = data["clientErrors"].as_u64().unwrap() + data["serverErrors"].as_u64().unwrap();
    assert_eq!(ok + errors, total);
    // 7 + 2 + the two logins; the collect is counted once it has answered.
    assert_eq!(total, 11, "{data}");

    let overview = json(root.get("/api/monitoring/overview").await, StatusCode::OK).await;
    let o = &overview["data"];
    assert!(o["system"]["memoryTotalBytes"].as_u64().unwrap() > 0);
    assert!(o["database"]["totalConnections"].as_u64().unwrap() >= 1);
    assert!(o["uptime"].is_u64());
    assert!(o["api"]["totalRequests"].as_u64().unwrap() >= total);

    let later = json(
        root.get("/api/monitoring/api?startDate=2999-01-01T00:00:00Z")
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(later["data"]["totalRequests"], 0);
    assert_eq!(later["data"]["errorRate"], 0.0);
}

#[tokio::test]
async fn retention_deletes_only_what_is_older_than_metrics_retention_days() {
    let seed = TestApp::spawn().await;
    seed.sql(
        "INSERT INTO system_metrics (cpu_usage_percent, cpu_count, memory_used_bytes, memory_total_bytes, uptime_seconds, collected_at) VALUES \
           (1, 1, 1, 2, 1, now() - interval '40 days'), (1, 1, 1, 2, 1, now() - interval '5 days'); \
         INSERT INTO database_metrics (total_connections, active_connections, idle_connections, database_size_bytes, query_latency_ms, collected_at) VALUES \
           (1, 1, 0, 1, 1, now() - interval '40 days'); \
         INSERT INTO api_metrics (bucket_start, route, method, status_code, request_count) VALUES \
           (now() - interval '40 days', '/api/old', 'GET', 200, 5), (now() - interval '1 day', '/api/recent', 'GET', 200, 5); \
         INSERT INTO health_checks (check_type, check_name, status, details, response_time_ms, checked_at) VALUES \
           ('database', 'postgres', 'healthy', '{}', 1, now() - interval '40 days')",
    );
    let _app = TestApp::spawn_sharing(
        &seed,
        &[
            ("PERIODIC_JOBS_ENABLED", "true".to_owned()),
            ("METRICS_RETENTION_DAYS", "30".to_owned()),
        ],
    )
    .await;
    wait_until("the retention run", Duration::from_secs(20), || {
        seed.sql("SELECT count(*) FROM job_runs WHERE name = 'metrics.retention' AND status = 'succeeded'") == "1"
    })
    .await;
    assert_eq!(
        seed.sql(
            "SELECT count(*) FROM system_metrics WHERE collected_at < now() - interval '30 days'"
        ),
        "0"
    );
    assert_eq!(
        seed.sql("SELECT count(*) FROM system_metrics WHERE collected_at > now() - interval '30 days' AND collected_at < now() - interval '1 day'"),
        "1",
        "the 5-day-old sample stays"
    );
    assert_eq!(
        seed.sql(
            "SELECT count(*) FROM database_metrics WHERE collected_at < now() - interval '30 days'"
        ),
        "0"
    );
    assert_eq!(
        seed.sql("SELECT string_agg(route, ',') FROM api_metrics"),
        "/api/recent"
    );
    assert_eq!(seed.sql("SELECT count(*) FROM health_checks"), "0");
    let message = seed.sql("SELECT message FROM job_runs WHERE name = 'metrics.retention'");
    for removed in ["removed 1 system,", "and 1 API metrics", "1 health checks"] {
        assert!(message.contains(removed), "{removed} in {message}");
    }
}

#[tokio::test]
async fn periodic_jobs_run_on_one_replica_per_period() {
    let first = TestApp::spawn().await;
    let vars = [
        ("PERIODIC_JOBS_ENABLED", "true".to_owned()),
        ("METRICS_COLLECT_INTERVAL_SECS", "1".to_owned()),
    ];
    let _a = TestApp::spawn_sharing(&first, &vars).await;
    let _b = TestApp::spawn_sharing(&first, &vars).await;
    let _c = TestApp::spawn_sharing(&first, &vars).await;
    wait_until("four collections", Duration::from_secs(30), || {
        first
            .sql("SELECT count(*) FROM job_runs WHERE name = 'metrics.collect' AND status = 'succeeded'")
            .parse::<u32>()
            .unwrap()
            >= 4
    })
    .await;
    // Gaps between consecutive starts, in milliseconds: three replicas ticking every
    // second elect one run per second, never two in one period.
    let gaps = first.sql(
        "SELECT string_agg(gap::text, ',') FROM ( \
           SELECT (extract(epoch FROM started_at - lag(started_at) OVER (ORDER BY started_at)) * 1000)::int AS gap \
           FROM job_runs WHERE name = 'metrics.collect') g WHERE gap IS NOT NULL",
    );
    let gaps: Vec<i64> = gaps.split(',').map(|g| g.parse().unwrap()).collect();
    assert!(gaps.iter().all(|g| *g >= 990), "gaps {gaps:?}");
    let runs: i64 = first
        .sql(
            "SELECT count(*) FROM job_runs WHERE name = 'metrics.collect' AND status = 'succeeded'",
        )
        .parse()
        .unwrap();
    let samples: i64 = first
        .sql("SELECT count(*) FROM system_metrics")
        .parse()
        .unwrap();
    // A run may be between its sample and its record; never more samples than runs + 1.
    assert!(
        samples >= runs && samples <= runs + 1,
        "{samples} samples, {runs} runs"
    );
    assert_eq!(
        first.sql("SELECT count(*) FROM job_runs WHERE name = 'metrics.retention'"),
        "1",
        "the hourly job ran once for all replicas"
    );
}

#[tokio::test]
async fn a_daily_backup_is_a_restorable_dump_and_old_ones_are_pruned() {
    let first = TestApp::spawn().await;
    first.sql("INSERT INTO system_metrics (cpu_usage_percent, cpu_count, memory_used_bytes, memory_total_bytes, uptime_seconds) VALUES (12.5, 1, 1, 2, 1)");
    // Two replicas sharing one backup volume, as in a typical deployment.
    let backups = std::env::temp_dir().join(format!("reviewd-backups-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&backups).unwrap();
    std::fs::write(backups.join("reviewd-20200101T020000Z.dump"), b"old").unwrap();
    std::fs::write(backups.join("keep-me.txt"), b"not a backup").unwrap();
    let vars = [
        ("PERIODIC_JOBS_ENABLED", "true".to_owned()),
        ("AUTO_BACKUP_ENABLED", "true".to_owned()),
        ("BACKUP_RETENTION_DAYS", "7".to_owned()),
        ("BACKUP_DIR", backups.display().to_string()),
    ];
    // A replica started after 02:00 runs the day's missed backup; the other does not
    // run a second one.
    let _a = TestApp::spawn_sharing(&first, &vars).await;
    let _b = TestApp::spawn_sharing(&first, &vars).await;
    wait_until("the backup run", Duration::from_secs(60), || {
        first.sql(
            "SELECT count(*) FROM job_runs WHERE name = 'database.backup' AND status <> 'running'",
        ) == "1"
    })
    .await;
    assert_eq!(
        first.sql("SELECT status FROM job_runs WHERE name = 'database.backup'"),
        "succeeded",
        "{}",
        first.sql("SELECT message FROM job_runs WHERE name = 'database.backup'")
    );
    let mut names: Vec<String> = std::fs::read_dir(&backups)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    assert_eq!(
        names.len(),
        2,
        "one new backup and the foreign file: {names:?}"
    );
    assert_eq!(names[0], "keep-me.txt");
    assert!(names[1].starts_with("reviewd-2") && names[1].ends_with(".dump"));
    assert_ne!(
        names[1], "reviewd-20200101T020000Z.dump",
        "the expired one is pruned"
    );
    // The archive restores: pg_restore reads its table of contents.
    let out = std::process::Command::new("pg_restore")
        .arg("--list")
        .arg(backups.join(&names[1]))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let toc = String::from_utf8_lossy(&out.stdout);
    assert!(toc.contains("TABLE DATA public system_metrics"), "{toc}");
    assert!(toc.contains("TABLE public users"));
    std::fs::remove_dir_all(&backups).unwrap();
}

#[tokio::test]
async fn a_failed_dump_reports_why_and_leaves_no_partial_file() {
    let dir = std::env::temp_dir().join(format!("reviewd-backup-fail-{}", uuid::Uuid::new_v4()));
    let err = reviewd_runtime::backup::run(
        "postgres://nobody:pw@127.0.0.1:1/none",
        &dir,
        chrono::Utc::now(),
    )
    .await
    .unwrap_err();
    assert!(err.starts_with("pg_dump exited with"), "{err}");
    assert!(!err.contains("pw@"), "no password in the message: {err}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn metrics_report_reviews_runners_and_notifications_by_state() {
    let app = TestApp::spawn_with(&[("RUNNER_HEARTBEAT_TIMEOUT_MS", "30000".to_owned())]).await;
    app.sql(
        "INSERT INTO runners (id, name, status, last_heartbeat) VALUES \
           ('r-live', 'live', 'busy', now()), ('r-silent', 'silent', 'online', now() - interval '5 minutes'), ('r-never', 'never', 'online', NULL); \
         INSERT INTO notification_history (channel, notification_type, status) VALUES \
           ('email', 'review_completed', 'sent'), ('email', 'review_completed', 'sent'), ('chatA', 'review_failed', 'failed')",
    );
    // The recorder is one per process and other tests scrape it too: take a scrape
    // in which this app's gauges were the last set (a few tries at most).
    let mut text = String::new();
    for _ in 0..5 {
        text = reqwest::get(app.url("/api/metrics"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        if text.contains(r#"reviewd_runners{status="busy"} 1"#) {
            break;
        }
    }
    let value = |series: &str| -> Option<f64> {
        text.lines()
            .find_map(|l| l.strip_prefix(series)?.trim().parse().ok())
    };
    assert_eq!(
        value(r#"reviewd_runners{status="busy"}"#),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        value(r#"reviewd_runners{status="offline"}"#),
        Some(2.0),
        "silent runners are offline"
    );
    assert_eq!(value(r#"reviewd_runners{status="online"}"#), Some(0.0));
    assert_eq!(value(r#"reviewd_reviews{status="completed"}"#), Some(0.0));
    assert!(
        text.lines().any(|l| l.starts_with("reviewd_notifications{")
            && l.contains(r#"channel="email""#)
            && l.contains(r#"status="sent""#)
            && l.ends_with(" 2")),
        "{text}"
    );
}

#[tokio::test]
async fn a_backup_restores_into_an_empty_database_and_the_server_runs_on_it() {
    let original = TestApp::spawn().await;
    let gitlab = reviewd_testkit::FakeGitlab::start("glpat-restore").await;
    let config_id = crate::helpers::create_gitlab_config(&original, &gitlab).await;
    let dir = std::env::temp_dir().join(format!("reviewd-restore-{}", uuid::Uuid::new_v4()));
    let backup = reviewd_runtime::backup::run(&original.database_url, &dir, chrono::Utc::now())
        .await
        .unwrap();

    // As docs/operations.md says: an empty database, pg_restore as the app's role.
    let empty = reviewd_testkit::TestDb::empty().await;
    let out = std::process::Command::new("pg_restore")
        .args(["--no-owner", "--clean", "--if-exists", "--dbname"])
        .arg(empty.url())
        .arg(&backup.path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let restored = TestApp {
        base_url: String::new(),
        queue_prefix: format!("reviewd-test:{}:", uuid::Uuid::new_v4().simple()),
        database_url: empty.url().to_owned(),
        _db: Some(empty),
    };
    // The server starts on it (migrations at start find nothing to do) and has it all:
    // the root account, the platform config with its secrets still readable.
    let server = TestApp::spawn_sharing(&restored, &[]).await;
    let root = server.root().await;
    let configs = json(root.get("/api/platform-configs").await, StatusCode::OK).await;
    let config = configs["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == config_id.as_str())
        .unwrap_or_else(|| panic!("{configs}"));
    assert_eq!(config["accessToken"], "***");
    let token = json(
        root.get(&format!("/api/platform-configs/{config_id}/access-token"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        token["data"]["accessToken"], "glpat-restore",
        "the secret decrypts after the restore"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
