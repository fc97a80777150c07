//! Monitoring needs a login; a collection adds a sample to each history.

use super::*;

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
