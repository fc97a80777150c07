//! Load script for runner claims: R simulated runners poll `GET
//! /api/runners/tasks/pending` at once until T queued tasks are all claimed, over
//! loopback against the real server, PostgreSQL, Redis and a fake GitLab (each claim
//! prepares the task's round: two platform calls and the review records; preparing
//! ahead, the server's default, is off here).
//!
//! Reports claims per second, claim-call latency percentiles, and checks that no
//! task was claimed twice and none was left unclaimed (the run fails otherwise).
//!
//! Environment: BENCH_RUNNERS (50), BENCH_TASKS (1000), BENCH_CLAIM_LIMIT (1),
//! BENCH_WAIT_PREPARED (0): 1 starts the clock only once the server's preparer has
//! prepared every task (the steady state), 0 polls at once (preparer and inline
//! preparation together).
#![allow(
    dead_code,
    reason = "`allow`, not `expect`: each bench uses a different part of the shared helpers"
)]
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark stops at its first failure"
)]

mod common;
#[path = "../api/helpers.rs"]
mod helpers;

use common::{env, percentile};
use helpers::{TestApp, create_gitlab_config, json};
use reqwest::StatusCode;
use reviewd_testkit::FakeGitlab;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, ResponseTemplate};

/// Every MR of project 1 answers with one changed file.
async fn gitlab() -> FakeGitlab {
    let gitlab = FakeGitlab::start("glpat-bench").await;
    gitlab.with_projects(1, "svc").await;
    let head = "da1560886d4f094c3e6c9ef40349f7d38b5d27d7";
    Mock::given(method("GET"))
        .and(path_regex(r"^/api/v4/projects/1/merge_requests/\d+$"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": 99, "iid": 1, "title": "Bench", "description": null, "state": "opened",
            "web_url": "https://gitlab.example.com/group/svc-1/-/merge_requests/1",
            "source_branch": "b", "target_branch": "main", "author": { "id": 51, "username": "dev" },
            "sha": head, "draft": false,
            "diff_refs": { "base_sha": "base0", "start_sha": "base0", "head_sha": head },
        })))
        .mount(&gitlab.server)
        .await;
    Mock::given(method("GET"))
        .and(path_regex(r"^/api/v4/projects/1/merge_requests/\d+/diffs$"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!([{ "old_path": "src/app.rs", "new_path": "src/app.rs",
                    "new_file": false, "renamed_file": false, "deleted_file": false,
                    "diff": "@@ -1,2 +1,3 @@\n fn main() {\n+    go();\n }\n" }]))
                .insert_header("x-next-page", ""),
        )
        .mount(&gitlab.server)
        .await;
    gitlab
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    if std::env::args().any(|a| a == "--test" || a == "--list") {
        return;
    }
    let (runners, tasks, limit) = (
        env("BENCH_RUNNERS", 50),
        env("BENCH_TASKS", 1000),
        env("BENCH_CLAIM_LIMIT", 1),
    );
    let gitlab = gitlab().await;
    let app = Arc::new(
        TestApp::spawn_with(&[
            ("HTTP_WORKERS", "2".to_owned()),
            ("DATABASE_POOL_SIZE", "32".to_owned()),
            ("PROVIDERA_ENDPOINT", "http://ai.invalid/v1".to_owned()),
            // The preparer runs with the periodic jobs. This script measures claims
            // that prepare their rounds: preparing ahead, the server's default, only
            // when RUNNER_PREPARED_MAX_AGE_SECS is set.
            ("PERIODIC_JOBS_ENABLED", "true".to_owned()),
            (
                "RUNNER_PREPARED_MAX_AGE_SECS",
                std::env::var("RUNNER_PREPARED_MAX_AGE_SECS").unwrap_or_else(|_| "0".to_owned()),
            ),
        ])
        .await,
    );
    let config = create_gitlab_config(&app, &gitlab).await;
    let root = app.root().await;
    json(
        root.post(
            "/api/projects/sync/platform",
            json!({ "platformConfigId": config }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let project = app.sql("SELECT id FROM projects LIMIT 1");
    app.sql(&format!(
        "INSERT INTO review_tasks (triggered_by, project_id, mr_iid, status) \
         SELECT 'auto', '{project}', n, 'queued' FROM generate_series(1, {tasks}) n"
    ));
    let key = json(
        root.post("/api/api-keys", json!({ "name": "bench" })).await,
        StatusCode::CREATED,
    )
    .await["data"]["apiKey"]["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let client = reqwest::Client::new();
    for r in 0..runners {
        let response = client
            .post(app.url("/api/runners/register"))
            .header("x-api-key", &key)
            .header("x-runner-id", format!("bench-{r}"))
            .header("x-runner-max-concurrency", tasks.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
    }

    if env("BENCH_WAIT_PREPARED", 0) == 1 {
        let t = Instant::now();
        let query =
            "SELECT count(*) FROM review_tasks WHERE assignment ? 'prepared' AND status = 'queued'";
        while app.sql(query) != tasks.to_string() {
            assert!(
                t.elapsed() < Duration::from_secs(300),
                "preparer stalled at {}",
                app.sql(query)
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        println!(
            "prepared {tasks} tasks ahead in {:.2?} ({:.0}/s)",
            t.elapsed(),
            f64::from(u32::try_from(tasks).unwrap()) / t.elapsed().as_secs_f64()
        );
    }
    let started = Instant::now();
    let polls = (0..runners).map(|r| {
        let (app, client, key) = (app.clone(), client.clone(), key.clone());
        tokio::spawn(async move {
            let (mut claimed, mut latencies, mut empty) = (Vec::new(), Vec::new(), 0u32);
            // Polls until the queue has answered empty a few times in a row.
            while empty < 3 {
                let t = Instant::now();
                let response = client
                    .get(app.url(&format!(
                        "/api/runners/tasks/pending?runnerId=bench-{r}&limit={limit}"
                    )))
                    .header("x-api-key", &key)
                    .send()
                    .await
                    .unwrap();
                assert_eq!(response.status(), StatusCode::OK);
                let body: Value = response.json().await.unwrap();
                latencies.push(t.elapsed());
                let got = body["data"].as_array().unwrap();
                if got.is_empty() {
                    empty += 1;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                } else {
                    empty = 0;
                    claimed.extend(got.iter().map(|t| t["id"].as_str().unwrap().to_owned()));
                }
            }
            (claimed, latencies)
        })
    });
    let mut counts: HashMap<String, u32> = HashMap::new();
    let mut latencies = Vec::new();
    for poll in futures_util::future::join_all(polls).await {
        let (claimed, lat) = poll.unwrap();
        for id in claimed {
            *counts.entry(id).or_default() += 1;
        }
        latencies.extend(lat);
    }
    let elapsed = started.elapsed();
    let claimed_total: u32 = counts.values().sum();
    let doubles = counts.values().filter(|c| **c > 1).count();
    let unclaimed = app.sql("SELECT count(*) FROM review_tasks WHERE status = 'queued'");
    latencies.sort();
    // The time and the latencies include each runner's closing empty polls (three
    // per runner, 20 ms apart), so claims/s slightly understates the claim rate.
    println!(
        "runner claims: {runners} runners, {tasks} tasks, limit {limit}: {claimed_total} claimed in {elapsed:.2?} \
         ({:.0} claims/s); claim call p50 {:?}, p95 {:?}, p99 {:?} over {} calls; \
         tasks claimed twice: {doubles}; left unclaimed: {unclaimed}",
        f64::from(claimed_total) / elapsed.as_secs_f64(),
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.95),
        percentile(&latencies, 0.99),
        latencies.len(),
    );
    assert_eq!(doubles, 0, "a task was claimed by two runners");
    assert_eq!(unclaimed, "0", "tasks were left in the queue");
    assert_eq!(
        u64::from(claimed_total),
        tasks,
        "every task claimed exactly once"
    );
}
