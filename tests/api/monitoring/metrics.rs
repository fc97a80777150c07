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
