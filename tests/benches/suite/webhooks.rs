//! Webhook acceptance: GitLab MR webhooks, each opening a new MR (so each queues a
//! task), against the pgbench insert bound measured in the same run; closed loop for
//! the most the server takes, open loop at 1k/s for the latency a steady GitLab sees,
//! and wrong-token rejections as the floor of the HTTP path.

use crate::bounds::Bounds;
use crate::helpers::{TestApp, create_gitlab_config, json};
use crate::load::{self, MakeRequest, Outcome};
use crate::stack::{Server, Stack};
use crate::table::{Row, Table, ms, percent};
use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::Full;
use reviewd_testkit::FakeGitlab;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

const SECRET: &str = "hook-secret-a";

/// The fixture's body with markers where each request puts its MR.
fn template() -> String {
    let file = format!(
        "{}/fixtures/webhooks/hostA/merge_request.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut body: Value =
        serde_json::from_str(&std::fs::read_to_string(file).expect("the fixture")).expect("JSON");
    body["object_attributes"]["iid"] = json!("__IID__");
    body["object_attributes"]["last_commit"]["id"] = json!("__HEAD__");
    body.to_string()
}

/// Webhooks for MRs `first + n`, signed with `token`.
pub fn webhooks(app: &TestApp, first: u64, token: &'static str) -> MakeRequest {
    let (uri, template) = (app.url("/api/webhook/hostA"), template());
    Arc::new(move |n| {
        let iid = first + n;
        let body = template
            .replace("\"__IID__\"", &iid.to_string())
            .replace("__HEAD__", &format!("{iid:040x}"));
        Request::post(&uri)
            .header("content-type", "application/json")
            .header("x-gitlab-event", "Merge Request Hook")
            .header("x-gitlab-token", token)
            .body(Full::new(Bytes::from(body)))
            .expect("a request")
    })
}

async fn server_with_project(stack: &mut Stack, gitlab: &FakeGitlab) -> Server {
    let url = stack.database();
    let server = stack
        .server(
            "webhooks",
            &url,
            // Acceptance only: tasks stay queued (the flood section runs reviews).
            &[("REVIEW_WORKERS_ENABLED", "false".to_owned())],
        )
        .await;
    let config = create_gitlab_config(&server.app, gitlab).await;
    json(
        server
            .app
            .root()
            .await
            .post(
                "/api/projects/sync/platform",
                json!({ "platformConfigId": config }),
            )
            .await,
        reqwest::StatusCode::OK,
    )
    .await;
    server
}

fn latencies(o: &Outcome) -> String {
    format!("p50 {}, p99 {}", ms(o.p(50.0)), ms(o.p(99.0)))
}

pub async fn run(stack: &mut Stack, table: &mut Table, bounds: &Bounds) {
    let secs = crate::env_number("BENCH_SECS", 20);
    let gitlab = FakeGitlab::start("glpat-bench").await;
    gitlab.with_projects(1, "svc").await;
    let server = server_with_project(stack, &gitlab).await;
    let (client, pid) = (load::client(), server.pid());
    let rss = server.rss_sampler();

    let rejected = load::closed(
        &client,
        webhooks(&server.app, 1, "wrong-token"),
        32,
        Duration::from_secs(secs / 2),
        pid,
    )
    .await;
    assert_eq!(rejected.count(StatusCode::UNAUTHORIZED), rejected.answered);
    table.push(
        Row::info(
            "webhooks",
            format!(
                "rejected (wrong token), closed loop 32 connections {} s",
                secs / 2
            ),
            format!("{:.0}/s, {}", rejected.rate(), latencies(&rejected)),
        )
        .bound("issue's baseline 5.8k/s", ""),
    );

    // The same path's floor at the open loop's rate: no store touched, so what the
    // accepted open loop adds above it is the intake's own (the task's insert).
    let rejected_open = load::open(
        &client,
        webhooks(&server.app, 1, "wrong-token"),
        1000.0,
        Duration::from_secs(secs / 2),
        512,
        pid,
    )
    .await;
    assert_eq!(
        rejected_open.count(StatusCode::UNAUTHORIZED),
        rejected_open.answered
    );
    table.push(Row::info(
        "webhooks",
        format!(
            "rejected (wrong token), open loop 1000/s offered {} s",
            secs / 2
        ),
        format!(
            "p50 {}, p99 {}, p99.9 {}; generator lag p99 {}",
            ms(rejected_open.p(50.0)),
            ms(rejected_open.p(99.0)),
            ms(rejected_open.p(99.9)),
            ms(rejected_open.send_lag.value_at_quantile(0.99)),
        ),
    ));

    let before = tasks(&server.app);
    let closed = load::closed(
        &client,
        webhooks(&server.app, 1_000_000, SECRET),
        32,
        Duration::from_secs(secs),
        pid,
    )
    .await;
    let accepted = closed.count(StatusCode::OK);
    table.push(
        Row::info(
            "webhooks",
            format!("accepted, closed loop 32 connections {secs} s"),
            format!(
                "{:.0}/s, {}; {}",
                accepted as f64 / closed.elapsed.as_secs_f64(),
                latencies(&closed),
                closed.cpu_note()
            ),
        )
        .bound(
            format!("pgbench {:.0} commits/s", bounds.pg_inserts),
            percent(closed.rate(), bounds.pg_inserts),
        )
        .target(
            ">= 5000/s",
            closed.rate() >= 5000.0 && accepted == closed.answered,
        ),
    );

    let open_started = std::time::SystemTime::now();
    let open = load::open(
        &client,
        webhooks(&server.app, 10_000_000, SECRET),
        1000.0,
        Duration::from_secs(secs),
        512,
        pid,
    )
    .await;
    let ok = open.count(StatusCode::OK) == open.answered && open.answered > 0;
    if let Ok(path) = std::env::var("BENCH_TRACE") {
        trace(&open, open_started, &path);
    }
    table.push(
        Row::info(
            "webhooks",
            format!("accepted, open loop 1000/s offered {secs} s"),
            format!(
                "{:.0}/s; p50 {}, p99 {}, p99.9 {}; generator lag p99 {}; {}",
                open.rate(),
                ms(open.p(50.0)),
                ms(open.p(99.0)),
                ms(open.p(99.9)),
                ms(open.send_lag.value_at_quantile(0.99)),
                open.cpu_note()
            ),
        )
        .bound(
            format!(
                "PostgreSQL's own insert commit at 1000/s: p99 {}",
                ms(bounds.pg_at_1k.value_at_quantile(0.99))
            ),
            "",
        )
        .target("p99 < 5 ms", ok && open.p(99.0) < 5_000),
    );
    let acknowledged = accepted + open.count(StatusCode::OK);
    let recorded = tasks(&server.app) - before;
    table.push(
        Row::info(
            "webhooks",
            "acknowledged (200) and recorded as tasks in PostgreSQL",
            format!("{acknowledged} acknowledged, {recorded} recorded"),
        )
        .target("every one", recorded == acknowledged),
    );
    table.push(
        Row::info("webhooks", "peak RSS under the webhook loads", rss.stop())
            .bound("issue's baseline 41 MB under the flood", ""),
    );
    let _ = bounds.redis_sets;
}

/// `BENCH_TRACE=<file>`: every open-loop request's due time and latency to `file`
/// (CSV, µs), and the runs of slow ones printed with their wall-clock time, to set
/// beside the server's, PostgreSQL's and `perf`'s timelines.
fn trace(open: &load::Outcome, started: std::time::SystemTime, path: &str) {
    let epoch_us = started
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros());
    let mut csv = format!("# started at {epoch_us} µs after the Unix epoch\ndue_us,latency_us\n");
    for (due, latency) in &open.trace {
        csv.push_str(&format!("{due},{latency}\n"));
    }
    std::fs::write(path, csv).expect("BENCH_TRACE is writable");
    let runs = open.slow_runs(5_000, 50_000);
    println!(
        "open loop: {} request(s) at 5 ms or more, in {} run(s) (gaps under 50 ms joined); started {epoch_us} µs after the epoch",
        runs.iter().map(|r| r.2).sum::<usize>(),
        runs.len()
    );
    for (first, last, count, worst) in runs {
        println!(
            "  {:>8.1}-{:>8.1} ms: {count:>4} slow, worst {}",
            first as f64 / 1000.0,
            last as f64 / 1000.0,
            ms(worst)
        );
    }
}

fn tasks(app: &TestApp) -> u64 {
    app.sql("SELECT count(*) FROM review_tasks")
        .parse()
        .expect("a count")
}
