//! Load script for the review pipeline, on loopback with fake GitLab and AI servers.
//!
//! 1. Webhook acceptance: N real-shape MR webhooks (distinct MRs) sent by C concurrent
//!    clients; throughput and latency percentiles of the 200 answers.
//! 2. Review overhead: reviews of an MR with F files against a fake provider that
//!    answers after a fixed latency L, with AI_REVIEW_CONCURRENCY = K. The lower bound
//!    is ceil(F / K) × L; the overhead is the measured time above it.
//!
//! Environment: BENCH_WEBHOOKS (2000), BENCH_CLIENTS (32), BENCH_FILES (12),
//! BENCH_AI_LATENCY_MS (200), BENCH_CONCURRENCY (3), BENCH_REVIEWS (5).
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
use std::sync::Arc;
use std::time::{Duration, Instant};
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, Request, ResponseTemplate};

fn webhook(iid: u64, head: &str) -> Value {
    let file = format!(
        "{}/fixtures/webhooks/hostA/merge_request.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut body: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    body["object_attributes"]["iid"] = json!(iid);
    body["object_attributes"]["last_commit"]["id"] = json!(head);
    body
}

async fn project(app: &TestApp, gitlab: &FakeGitlab) {
    let config = create_gitlab_config(app, gitlab).await;
    json(
        app.root()
            .await
            .post(
                "/api/projects/sync/platform",
                json!({ "platformConfigId": config }),
            )
            .await,
        StatusCode::OK,
    )
    .await;
}

async fn webhook_acceptance() {
    let (n, clients) = (env("BENCH_WEBHOOKS", 2000), env("BENCH_CLIENTS", 32));
    let gitlab = FakeGitlab::start("glpat-bench").await;
    gitlab.with_projects(1, "svc").await;
    let app = Arc::new(TestApp::spawn_with(&[("HTTP_WORKERS", "2".to_owned())]).await);
    project(&app, &gitlab).await;
    let client = reqwest::Client::new();
    let next = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let started = Instant::now();
    let mut handles = Vec::new();
    for _ in 0..clients {
        let (app, client, next) = (app.clone(), client.clone(), next.clone());
        handles.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= n {
                    return latencies;
                }
                let body = webhook(i + 1, &format!("{:040x}", i + 1));
                let t = Instant::now();
                let r = client
                    .post(app.url("/api/webhook/hostA"))
                    .header("X-Gitlab-Token", "hook-secret-a")
                    .json(&body)
                    .send()
                    .await
                    .unwrap();
                assert_eq!(r.status(), StatusCode::OK);
                latencies.push(t.elapsed());
            }
        }));
    }
    let mut all: Vec<Duration> = Vec::new();
    for h in handles {
        all.extend(h.await.unwrap());
    }
    let elapsed = started.elapsed();
    all.sort();
    println!(
        "webhook acceptance: {n} webhooks, {clients} clients, {:.0} req/s; latency p50 {:?}, p99 {:?}, max {:?}",
        n as f64 / elapsed.as_secs_f64(),
        percentile(&all, 0.5),
        percentile(&all, 0.99),
        all[all.len() - 1]
    );
}

async fn review_overhead() {
    let (files, latency_ms, concurrency, reviews) = (
        env("BENCH_FILES", 12),
        env("BENCH_AI_LATENCY_MS", 200),
        env("BENCH_CONCURRENCY", 3),
        env("BENCH_REVIEWS", 5),
    );
    let gitlab = FakeGitlab::start("glpat-bench").await;
    gitlab.with_projects(1, "svc").await;
    let diff_files: Vec<Value> = (0..files).map(|i| json!({
        "old_path": format!("src/f{i}.rs"), "new_path": format!("src/f{i}.rs"), "new_file": false, "renamed_file": false, "deleted_file": false,
        "diff": "@@ -1,2 +1,3 @@\n fn a() {\n+    let x = b().unwrap();\n }\n" })).collect();
    Mock::given(method("GET")).and(path_regex(r"^/api/v4/projects/1/merge_requests/\d+$"))
        .respond_with(|req: &Request| {
            let iid: u64 = req.url.path().rsplit('/').next().unwrap().parse().unwrap();
            let head = format!("{iid:040x}");
            ResponseTemplate::new(200).set_body_json(json!({ "iid": iid, "title": "Bench", "state": "opened", "web_url": "https://x", "source_branch": "b", "target_branch": "main", "sha": head, "diff_refs": { "base_sha": "b0", "start_sha": "b0", "head_sha": head } }))
        })
        .mount(&gitlab.server).await;
    Mock::given(method("GET"))
        .and(path_regex(r"^/api/v4/projects/1/merge_requests/\d+/diffs$"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(diff_files)
                .insert_header("x-next-page", ""),
        )
        .mount(&gitlab.server)
        .await;
    Mock::given(method("POST"))
        .and(path_regex(r"/discussions$"))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({ "id": "d" })))
        .mount(&gitlab.server)
        .await;
    Mock::given(method("POST"))
        .and(path_regex(r"/notes$"))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({ "id": 1 })))
        .mount(&gitlab.server)
        .await;
    let ai = reviewd_testkit::fake_openai(Duration::from_millis(latency_ms), |_| {
        json!({ "summary": "ok", "comments": [{ "line": 2, "severity": "warning", "message": "unwrap" }] })
    })
    .await;
    let app = TestApp::spawn_with(&[
        ("REVIEW_WORKERS_ENABLED", "true".to_owned()),
        ("AI_REVIEW_CONCURRENCY", concurrency.to_string()),
        ("PROVIDERA_ENDPOINT", format!("{}/v1", ai.uri())),
    ])
    .await;
    project(&app, &gitlab).await;
    let root = app.root().await;
    let bound = Duration::from_millis(files.div_ceil(concurrency) * latency_ms);
    let mut times = Vec::new();
    for r in 0..reviews {
        let iid = 100 + r;
        let t = Instant::now();
        let resp: Value = reqwest::Client::new()
            .post(app.url("/api/webhook/hostA"))
            .header("X-Gitlab-Token", "hook-secret-a")
            .json(&webhook(iid, &format!("{iid:040x}")))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let task_id = resp["data"]["taskId"].as_str().unwrap().to_owned();
        loop {
            let task = json(
                root.get(&format!("/api/reviews/manual/tasks/{task_id}"))
                    .await,
                StatusCode::OK,
            )
            .await;
            if task["data"]["task"]["status"] == "completed" {
                break;
            }
            assert_ne!(task["data"]["task"]["status"], "failed", "{task}");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        times.push(t.elapsed());
    }
    times.sort();
    let median = percentile(&times, 0.5);
    println!(
        "review overhead: {files} files, provider latency {latency_ms} ms, concurrency {concurrency}: bound ceil({files}/{concurrency})x{latency_ms} ms = {bound:?}; \
         median {median:?} (min {:?}, max {:?}) over {reviews} reviews; overhead {:?} ({:.2}x the bound)",
        times[0],
        times[times.len() - 1],
        median.saturating_sub(bound),
        median.as_secs_f64() / bound.as_secs_f64()
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` would too: skip then.
    if std::env::args().any(|a| a == "--test" || a == "--list") {
        return;
    }
    webhook_acceptance().await;
    review_overhead().await;
}
