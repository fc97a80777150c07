//! Dates, page sizes and numbers as the document states them.

use super::*;

#[tokio::test]
async fn date_filters_take_a_plain_date_or_a_timestamp_on_every_route() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    for path in [
        "/api/reviews?startDate=2026-01-01&endDate=2026-12-31",
        "/api/notifications?startDate=2026-01-01&endDate=2026-12-31",
        "/api/notifications/stats?startDate=2026-01-01",
        "/api/health/history?startDate=2026-01-01&endDate=2026-01-31",
        "/api/monitoring/system?startDate=2026-01-01",
        "/api/monitoring/database?startDate=2026-01-01",
        "/api/monitoring/api?startDate=2026-01-01",
        "/api/monitoring/api?startDate=2026-01-01T00:00:00Z",
    ] {
        let r = root.get(path).await;
        assert_eq!(
            r.status(),
            StatusCode::OK,
            "{path}: {}",
            r.text().await.unwrap()
        );
    }
    let body = expect_error(
        root.get("/api/health/history?startDate=01/31/2026").await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUERY",
    )
    .await;
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("startDate")
    );
}

// What Schemathesis found against the API document, each pinned here.

#[tokio::test]
async fn an_empty_or_padded_date_filter_is_malformed() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    for query in [
        "startDate=",
        "startDate=%202026-01-01",
        "endDate=2026-01-01%20",
    ] {
        expect_error(
            root.get(&format!("/api/reviews?{query}")).await,
            StatusCode::BAD_REQUEST,
            "INVALID_QUERY",
        )
        .await;
    }
}

#[tokio::test]
async fn a_page_size_past_32_bits_or_a_bad_alias_is_refused() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    for query in ["perPage=2147483648", "pageSize=5&perPage=false"] {
        expect_error(
            root.get(&format!("/api/users?{query}")).await,
            StatusCode::BAD_REQUEST,
            "INVALID_QUERY",
        )
        .await;
    }
    json(
        root.get("/api/users?pageSize=2147483647").await,
        StatusCode::OK,
    )
    .await;
}

#[tokio::test]
async fn a_whole_number_written_as_a_float_is_that_number() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let cleaned = json(
        root.post("/api/notifications/clean", json!({ "days": 30.0 }))
            .await,
        StatusCode::OK,
    )
    .await;
    assert!(cleaned["data"].is_object(), "{cleaned}");
    expect_error(
        root.post("/api/notifications/clean", json!({ "days": 30.5 }))
            .await,
        StatusCode::BAD_REQUEST,
        "INVALID_BODY",
    )
    .await;
}
