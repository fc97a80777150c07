//! `/metrics`: reviews, runners and notifications by state.

use super::*;

#[tokio::test]
async fn metrics_report_reviews_runners_and_notifications_by_state() {
    let app = TestApp::spawn_with(&[("RUNNER_HEARTBEAT_TIMEOUT_MS", "30000".to_owned())]).await;
    app.sql(
        "INSERT INTO runners (id, name, status, last_heartbeat) VALUES \
           ('r-live', 'live', 'busy', now()), ('r-silent', 'silent', 'online', now() - interval '5 minutes'), ('r-never', 'never', 'online', NULL); \
         INSERT INTO notification_history (channel, notification_type, status) VALUES \
           ('email', 'review_completed', 'sent'), ('email', 'review_completed', 'sent'), ('chatA', 'review_failed', 'failed')",
    );
    let text = scrape_until(&app, |t| t.contains(r#"reviewd_runners{status="busy"} 1"#)).await;
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

/// Scrapes until `wanted` holds of the text (a few tries at most): the recorder is
/// one per process and other tests' apps set the shared gauges too.
async fn scrape_until(app: &TestApp, wanted: impl Fn(&str) -> bool) -> String {
    let mut text = String::new();
    for _ in 0..5 {
        text = reqwest::get(app.url("/api/metrics"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        if wanted(&text) {
            break;
        }
    }
    text
}

#[tokio::test]
async fn every_family_says_what_it_counts_and_the_queue_says_how_long_a_task_has_waited() {
    let app = TestApp::spawn().await;
    app.sql(
        "INSERT INTO platform_configs (name, platform_type, base_url) VALUES ('G', 'hostA', 'https://gitlab.example.com')",
    );
    let project = app.sql(
        "INSERT INTO projects (platform_config_id, platform_type, platform_project_id, name, full_path, web_url) \
         SELECT id, 'hostA', '7', 'svc', 'g/svc', 'https://gitlab.example.com/g/svc' FROM platform_configs RETURNING id",
    );
    // A task waiting for 20 minutes, one that has started (not waiting) and one done.
    app.sql(&format!(
        "INSERT INTO review_tasks (triggered_by, project_id, mr_iid, status, created_at) VALUES \
           ('auto', '{project}', 1, 'queued', now() - interval '20 minutes'), \
           ('auto', '{project}', 2, 'processing', now() - interval '3 hours'), \
           ('auto', '{project}', 3, 'completed', now() - interval '5 hours')"
    ));
    let age = |text: &str| -> Option<f64> {
        text.lines().find_map(|l| {
            l.strip_prefix("reviewd_queue_oldest_task_age_seconds ")?
                .parse()
                .ok()
        })
    };
    let text = scrape_until(&app, |t| age(t).is_some_and(|a| a >= 1200.0)).await;
    let waited = age(&text).unwrap_or_else(|| panic!("no queue age in:\n{text}"));
    assert!(
        (1200.0..1300.0).contains(&waited),
        "the waiting task, not the running or finished ones: {waited}"
    );

    // Prometheus's conventions, as `promtool check metrics` holds them: every family
    // has HELP and TYPE, counters end in `_total` and nothing else does.
    let typed: Vec<(&str, &str)> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split_once(' '))
        .collect();
    for family in [
        "http_requests_total",
        "reviewd_queue_depth",
        "reviewd_queue_oldest_task_age_seconds",
        "reviewd_review_tasks_total",
        "reviewd_reviews",
        "reviewd_runners",
    ] {
        assert!(
            typed.iter().any(|(name, _)| *name == family),
            "{family} missing:\n{text}"
        );
    }
    for (name, kind) in &typed {
        assert!(
            text.contains(&format!("# HELP {name} ")),
            "{name} has no HELP:\n{text}"
        );
        assert_eq!(
            name.ends_with("_total"),
            *kind == "counter",
            "{name} is a {kind}"
        );
    }
    // A task failing for the first time shows in `increase()`: the series exists at 0.
    assert!(
        text.lines()
            .any(|l| l.starts_with(r#"reviewd_review_tasks_total{outcome="failed"}"#)),
        "{text}"
    );
}
