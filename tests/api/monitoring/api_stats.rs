//! API statistics across replicas, with success and error rates.

use super::*;

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
