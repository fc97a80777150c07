//! The `MonitoringRepository` contract: samples read back newest first from a
//! cut-off on, API buckets summed per route, method and status, retention that
//! deletes what is older than its cut-off (but no running job), and the counts by
//! state of reviews, runners (silent ones offline) and deliveries.
//! Samples carry fixed past times, so the cases' windows do not overlap.

use super::{Stores, seed};
use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use reviewd_domain::PageRequest;
use reviewd_domain::model::health::{CheckResult, CheckType, HealthStatus};
use reviewd_domain::model::monitoring::{ApiBucket, DatabaseSample, PruneReport, SystemSample};
use reviewd_domain::model::notification::{Channel, NotificationType};
use reviewd_domain::model::runner::RunnerRegistration;
use reviewd_domain::ports::NewDelivery;

pub async fn run(s: &Stores) {
    system_history_is_newest_first_from_since(s).await;
    database_history_is_newest_first_from_since(s).await;
    a_database_sample_is_plausible(s).await;
    api_buckets_are_summed_per_route_method_and_status(s).await;
    state_counts_show_silent_runners_offline_and_deliveries(s).await;
    // Last: its second cut-off deletes every finished row of the store.
    prune_deletes_what_is_older_than_the_cut_off(s).await;
}

fn at(y: i32, m: u32, d: u32, h: u32, min: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, m, d, h, min, 0).unwrap()
}

fn page(n: u32, size: u32) -> PageRequest {
    PageRequest::new(n, size, 100)
}

fn system(collected_at: DateTime<Utc>, cpu: f64) -> SystemSample {
    SystemSample {
        instance: "host-1:42".into(),
        cpu_usage_percent: cpu,
        cpu_count: 4,
        memory_used_bytes: 3_000_000_000,
        memory_total_bytes: 8_000_000_000,
        process_memory_bytes: Some(120_000_000),
        uptime_seconds: 86_400,
        process_uptime_seconds: 600,
        load_average: Some([0.5, 0.25, 0.125]),
        collected_at,
    }
}

fn database(collected_at: DateTime<Utc>, size: u64) -> DatabaseSample {
    DatabaseSample {
        total_connections: 5,
        active_connections: 1,
        idle_connections: 4,
        max_connections: Some(100),
        database_size_bytes: size,
        query_latency_ms: 0.5,
        pool_size: Some(10),
        pool_available: None,
        collected_at,
    }
}

async fn system_history_is_newest_first_from_since(s: &Stores) {
    let t0 = at(2001, 2, 1, 10, 0);
    let samples: Vec<SystemSample> = (0..3_i32)
        .map(|i| system(t0 + TimeDelta::minutes(i.into()), 10.0 + f64::from(i)))
        .collect();
    // Saved out of order: the read orders them.
    for sample in [&samples[1], &samples[0], &samples[2]] {
        s.monitoring.save_system(sample).await.unwrap();
    }
    let all = s
        .monitoring
        .system_history(page(1, 10), Some(t0))
        .await
        .unwrap();
    assert_eq!(all.total, 3);
    assert_eq!(
        all.items,
        vec![samples[2].clone(), samples[1].clone(), samples[0].clone()]
    );
    let since = s
        .monitoring
        .system_history(page(2, 1), Some(t0 + TimeDelta::minutes(1)))
        .await
        .unwrap();
    assert_eq!((since.total, since.items), (2, vec![samples[1].clone()]));
    let everything = s.monitoring.system_history(page(1, 1), None).await.unwrap();
    assert!(everything.total >= 3);
}

async fn database_history_is_newest_first_from_since(s: &Stores) {
    let t0 = at(2001, 2, 2, 10, 0);
    let older = database(t0, 1_000);
    let newer = database(t0 + TimeDelta::minutes(1), 2_000);
    s.monitoring.save_database(&newer).await.unwrap();
    s.monitoring.save_database(&older).await.unwrap();
    let all = s
        .monitoring
        .database_history(page(1, 10), Some(t0))
        .await
        .unwrap();
    assert_eq!((all.total, all.items), (2, vec![newer.clone(), older]));
    let since = s
        .monitoring
        .database_history(page(1, 10), Some(newer.collected_at))
        .await
        .unwrap();
    assert_eq!(since.items, vec![newer]);
}

async fn a_database_sample_is_plausible(s: &Stores) {
    let sample = s.monitoring.sample_database().await.unwrap();
    assert!(sample.total_connections >= 1, "at least the caller's");
    assert!(sample.active_connections + sample.idle_connections <= sample.total_connections);
    assert!(
        sample
            .max_connections
            .is_none_or(|m| m >= sample.total_connections)
    );
    assert!(sample.database_size_bytes > 0);
    assert!(sample.query_latency_ms >= 0.0);
    s.monitoring.save_database(&sample).await.unwrap();
    let latest = s
        .monitoring
        .database_history(page(1, 1), None)
        .await
        .unwrap();
    // A sample is taken now, after every sample of the past; stores keep microseconds.
    let gap = latest.items[0].collected_at - sample.collected_at;
    assert!(gap.abs() < TimeDelta::milliseconds(1));
    assert_eq!(
        latest.items[0].database_size_bytes,
        sample.database_size_bytes
    );
}

fn bucket(start: DateTime<Utc>, route: &str, method: &str, status: u16, n: u64) -> ApiBucket {
    let latency = n as f64 * 4.0;
    ApiBucket {
        bucket_start: start,
        route: route.to_owned(),
        method: method.to_owned(),
        status_code: status,
        request_count: n,
        total_latency_ms: latency,
        max_latency_ms: latency,
    }
}

async fn api_buckets_are_summed_per_route_method_and_status(s: &Stores) {
    let (m1, m2) = (at(2001, 3, 1, 10, 0), at(2001, 3, 1, 10, 1));
    let route = format!("/api/{}", seed::unique());
    // Twice the same key in one batch, and again from another replica.
    let batch = [
        bucket(m1, &route, "GET", 200, 2),
        bucket(m1, &route, "GET", 200, 1),
        bucket(m2, &route, "GET", 200, 3),
        bucket(m1, &route, "GET", 500, 1),
        bucket(m1, &route, "POST", 200, 1),
    ];
    s.monitoring.add_api_buckets(&batch).await.unwrap();
    s.monitoring
        .add_api_buckets(&[bucket(m2, &route, "GET", 200, 4)])
        .await
        .unwrap();
    s.monitoring.add_api_buckets(&[]).await.unwrap();

    let route = route.as_str();
    let summed = |since| async move {
        let mut rows: Vec<ApiBucket> = s
            .monitoring
            .api_buckets(since)
            .await
            .unwrap()
            .into_iter()
            .filter(|b| b.route == *route)
            .collect();
        rows.sort_by(|a, b| (&a.method, a.status_code).cmp(&(&b.method, b.status_code)));
        rows
    };
    let from_m1 = summed(m1).await;
    assert_eq!(
        from_m1,
        vec![
            ApiBucket {
                max_latency_ms: 16.0,
                ..bucket(m1, route, "GET", 200, 10)
            },
            bucket(m1, route, "GET", 500, 1),
            bucket(m1, route, "POST", 200, 1),
        ],
        "sums over minutes, the greatest maximum, stamped with `since`"
    );
    assert_eq!(
        summed(m2).await,
        vec![ApiBucket {
            max_latency_ms: 16.0,
            ..bucket(m2, route, "GET", 200, 7)
        }]
    );
}

async fn state_counts_show_silent_runners_offline_and_deliveries(s: &Stores) {
    let project = seed::project(s).await;
    seed::review(s, &project, 1, "aaa").await;
    let runner = format!("runner-{}", seed::unique());
    s.runners
        .upsert(&RunnerRegistration {
            id: runner.clone(),
            name: runner,
            version: "1.0.0".into(),
            max_concurrent_jobs: 1,
            tags: Vec::new(),
            api_key_id: None,
        })
        .await
        .unwrap();
    let count = |counts: &[(String, u64)], state: &str| {
        counts.iter().find(|(s, _)| s == state).map_or(0, |c| c.1)
    };
    let heard = s
        .monitoring
        .state_counts(at(2000, 1, 1, 0, 0))
        .await
        .unwrap();
    assert!(count(&heard.reviews, "pending") >= 1);
    assert_eq!(count(&heard.runners, "offline"), 0);
    assert_eq!(count(&heard.runners, "online"), 1);
    let silent = s
        .monitoring
        .state_counts(at(2100, 1, 1, 0, 0))
        .await
        .unwrap();
    assert_eq!(count(&silent.runners, "offline"), 1);
    assert_eq!(count(&silent.runners, "online"), 0);

    s.notifications
        .add_delivery(NewDelivery {
            review_id: None,
            channel: Channel::Webhook,
            notification_type: NotificationType::ReviewFailed,
            recipient: None,
            payload: serde_json::json!({}),
        })
        .await
        .unwrap();
    let counted = s
        .monitoring
        .state_counts(at(2000, 1, 1, 0, 0))
        .await
        .unwrap();
    assert_eq!(
        counted.notifications,
        vec![("webhook".to_owned(), "pending".to_owned(), 1)]
    );
}

fn check(checked_at: DateTime<Utc>) -> CheckResult {
    CheckResult {
        check_type: CheckType::Database,
        check_name: "primary".into(),
        status: HealthStatus::Healthy,
        details: serde_json::json!({}),
        response_time: 1,
        checked_at,
    }
}

async fn prune_deletes_what_is_older_than_the_cut_off(s: &Stores) {
    let (old, cut, new) = (
        at(2000, 1, 1, 0, 0),
        at(2000, 1, 2, 0, 0),
        at(2000, 1, 3, 0, 0),
    );
    let m = &s.monitoring;
    for t in [old, new] {
        m.save_system(&system(t, 1.0)).await.unwrap();
        m.save_database(&database(t, 1)).await.unwrap();
        m.add_api_buckets(&[bucket(t, "/api/prune", "GET", 200, 1)])
            .await
            .unwrap();
        s.health_checks.save(&[check(t)]).await.unwrap();
    }
    let report = m.prune(cut).await.unwrap();
    assert_eq!(
        report,
        PruneReport {
            system_metrics: 1,
            database_metrics: 1,
            api_metrics: 1,
            health_checks: 1,
            job_runs: 0,
        }
    );
    let left = m.system_history(page(1, 10), Some(old)).await.unwrap();
    assert!(left.items.iter().all(|x| x.collected_at >= cut));
    assert!(left.items.iter().any(|x| x.collected_at == new));

    let epoch = DateTime::<Utc>::UNIX_EPOCH;
    let hour = TimeDelta::hours(1);
    let done = s
        .jobs
        .begin("prune-done", "a", epoch, hour)
        .await
        .unwrap()
        .unwrap();
    s.jobs
        .finish(
            done,
            &reviewd_domain::ports::JobOutcome::Succeeded("ok".into()),
        )
        .await
        .unwrap();
    s.jobs
        .begin("prune-running", "a", epoch, hour)
        .await
        .unwrap()
        .unwrap();
    let report = m.prune(at(2100, 1, 1, 0, 0)).await.unwrap();
    assert_eq!(report.job_runs, 1, "a running job is never pruned");
    assert_eq!(
        s.jobs
            .begin("prune-running", "b", epoch, hour)
            .await
            .unwrap(),
        None,
        "the running job still holds its run"
    );
    assert!(
        s.jobs
            .begin("prune-done", "b", epoch, hour)
            .await
            .unwrap()
            .is_some()
    );
}
