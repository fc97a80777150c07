//! `/metrics` counts requests by route template, never by raw path.

use super::*;

#[tokio::test]
async fn metrics_expose_requests_by_route_template_never_by_raw_path() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let id = uuid::Uuid::new_v4();
    for _ in 0..3 {
        expect_error(
            root.get(&format!("/api/reviews/{id}")).await,
            StatusCode::NOT_FOUND,
            "NOT_FOUND",
        )
        .await;
    }
    let r = reqwest::get(app.url("/api/metrics")).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    let text = r.text().await.unwrap();
    // Parse the exposition: `name{label="v",...} value`.
    let sample = |name: &str, labels: &[&str]| -> Option<f64> {
        text.lines().filter(|l| !l.starts_with('#')).find_map(|l| {
            let (series, value) = l.rsplit_once(' ')?;
            ((series == name || series.starts_with(&format!("{name}{{")))
                && labels.iter().all(|lab| series.contains(lab)))
            .then(|| value.parse().ok())?
        })
    };
    let count = sample(
        "http_requests_total",
        &[
            r#"route="/api/reviews/{review_id}""#,
            r#"method="GET""#,
            r#"status="404""#,
        ],
    );
    assert!(
        count.is_some_and(|c| c >= 3.0),
        "the 404s are counted under the template:\n{text}"
    );
    assert!(
        sample(
            "http_request_duration_seconds_count",
            &[r#"route="/api/reviews/{review_id}""#]
        )
        .is_some_and(|c| c >= 3.0)
    );
    assert!(!text.contains(&id.to_string()), "no raw id becomes a label");
    assert!(
        sample("reviewd_queue_depth", &[]).is_some(),
        "queue depth gauge"
    );
}
