//! Retention and the periodic jobs, one replica per period.

use super::*;

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
