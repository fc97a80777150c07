//! Runner claims: R simulated runners poll `GET /api/runners/tasks/pending` back to
//! back until T queued tasks are all claimed (T = max(200, 20·R)); claims a second,
//! the claim call's p99, and no task claimed twice. Rounds are prepared ahead of the
//! claims when the server does that: the clock starts once the preparing settles.

use crate::helpers::{TestApp, create_host_a_config, json};
use crate::load::{self, HttpClient};
use crate::stack::Stack;
use crate::table::{Row, Table, ms};
use bytes::Bytes;
use http::Request;
use http_body_util::Full;
use reviewd_testkit::FakeGitlab;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::{Duration, Instant};

fn count(app: &TestApp, sql: &str) -> u64 {
    app.sql(sql).parse().expect("a count")
}

/// Waits until the prepared tasks stop growing (3 s without change) or all are
/// prepared, at most 120 s; how many were prepared and how long that took.
async fn settle_preparing(app: &TestApp, tasks: u64) -> (u64, Duration) {
    let started = Instant::now();
    let (mut last, mut since) = (u64::MAX, Instant::now());
    loop {
        let prepared = count(
            app,
            "SELECT count(*) FROM review_tasks WHERE status = 'queued' AND assignment IS NOT NULL",
        );
        if prepared != last {
            (last, since) = (prepared, Instant::now());
        }
        if prepared >= tasks
            || since.elapsed() > Duration::from_secs(3)
            || started.elapsed() > Duration::from_secs(120)
        {
            let took = since.duration_since(started);
            return (prepared, took);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn poll(
    client: HttpClient,
    url: String,
    key: String,
) -> (Vec<String>, Vec<Duration>, Vec<Duration>, Option<Instant>) {
    let (mut claimed, mut busy, mut idle, mut empty) = (Vec::new(), Vec::new(), Vec::new(), 0);
    let mut last = None;
    // Polls until the queue has answered empty a few times in a row.
    while empty < 3 {
        let request = Request::get(&url)
            .header("x-api-key", &key)
            .body(Full::new(Bytes::new()))
            .expect("a request");
        let sent = Instant::now();
        let (status, body) = load::fetch(&client, request).await;
        let took = sent.elapsed();
        assert_eq!(status, 200, "a claim: {}", String::from_utf8_lossy(&body));
        let body: Value = serde_json::from_slice(&body).expect("JSON");
        let got = body["data"].as_array().expect("a list");
        if got.is_empty() {
            idle.push(took);
            empty += 1;
            tokio::time::sleep(Duration::from_millis(20)).await;
        } else {
            busy.push(took);
            last = Some(Instant::now());
            empty = 0;
            claimed.extend(
                got.iter()
                    .filter_map(|t| Some(t["id"].as_str()?.to_owned())),
            );
        }
    }
    (claimed, busy, idle, last)
}

async fn one(
    stack: &mut Stack,
    table: &mut Table,
    gitlab: &FakeGitlab,
    runners: u64,
    prepared_ahead: bool,
) {
    let tasks = (20 * runners).max(200);
    let url = stack.database();
    // Runners only: the server's own workers would compete for the tasks.
    let mut env = vec![("REVIEW_WORKERS_ENABLED", "false".to_owned())];
    if prepared_ahead {
        // The preparer runs with the periodic jobs.
        env.push(("RUNNER_PREPARED_MAX_AGE_SECS", "300".to_owned()));
        env.push(("PERIODIC_JOBS_ENABLED", "true".to_owned()));
    }
    let server = stack
        .server(&format!("claims{runners}{prepared_ahead}"), &url, &env)
        .await;
    let app = &server.app;
    let config = create_host_a_config(app, gitlab).await;
    let root = app.root().await;
    json(
        root.post(
            "/api/projects/sync/platform",
            json!({ "platformConfigId": config }),
        )
        .await,
        reqwest::StatusCode::OK,
    )
    .await;
    let key = json(
        root.post("/api/api-keys", json!({ "name": "bench" })).await,
        reqwest::StatusCode::CREATED,
    )
    .await["data"]["apiKey"]["key"]
        .as_str()
        .expect("a key")
        .to_owned();
    let client = reqwest::Client::new();
    for r in 0..runners {
        let response = client
            .post(app.url("/api/runners/register"))
            .header("x-api-key", &key)
            .header("x-runner-id", format!("bench-{r}"))
            // Room for every task it may claim (the protocol's most is 1000).
            .header("x-runner-max-concurrency", tasks.min(1000).to_string())
            .send()
            .await
            .expect("registered");
        assert_eq!(response.status(), reqwest::StatusCode::OK);
    }
    let project = app.sql("SELECT id FROM projects LIMIT 1");
    app.sql(&format!(
        "INSERT INTO review_tasks (triggered_by, project_id, mr_iid, head_sha, status) \
         SELECT 'auto', '{project}', n, lpad(to_hex(n), 40, '0'), 'queued' FROM generate_series(1, {tasks}) n"
    ));
    let (prepared, took) = settle_preparing(app, tasks).await;

    let rss = server.rss_sampler();
    let started = Instant::now();
    let http = load::client();
    let polls = (0..runners).map(|r| {
        let url = app.url(&format!(
            "/api/runners/tasks/pending?runnerId=bench-{r}&limit=1"
        ));
        tokio::spawn(poll(http.clone(), url, key.clone()))
    });
    let mut counts: HashMap<String, u32> = HashMap::new();
    let (mut busy, mut idle) = (Vec::new(), Vec::new());
    let mut last_claim = started;
    for poll in futures_util::future::join_all(polls).await {
        let (claimed, b, i, last) = poll.expect("a runner");
        for id in claimed {
            *counts.entry(id).or_default() += 1;
        }
        last_claim = last_claim.max(last.unwrap_or(started));
        busy.extend(b);
        idle.extend(i);
    }
    let claimed: u32 = counts.values().sum();
    let doubles = counts.values().filter(|c| **c > 1).count();
    let left = count(
        app,
        "SELECT count(*) FROM review_tasks WHERE status = 'queued'",
    );
    // Up to the last claim: the closing empty polls (3 per runner, 20 ms apart) are not claims.
    let window = last_claim
        .duration_since(started)
        .max(Duration::from_millis(1));
    let rate = f64::from(claimed) / window.as_secs_f64();
    let (busy, idle) = (load::histogram_of(&busy), load::histogram_of(&idle));
    let p99 = busy.value_at_quantile(0.99);
    let ok = doubles == 0 && left == 0 && u64::from(claimed) == tasks;
    let target = runners == 50 && !prepared_ahead;
    let row = Row::info(
        "claims",
        format!(
            "{runners} runner(s), {tasks} tasks, limit 1{}",
            if prepared_ahead {
                ", rounds prepared ahead (RUNNER_PREPARED_MAX_AGE_SECS=300)"
            } else {
                ""
            }
        ),
        format!(
            "{rate:.0} claims/s; claim p50 {}, p99 {}; empty polls p99 {}; prepared ahead {prepared} in {:.1} s; claimed twice {doubles}, left {left}",
            ms(busy.value_at_quantile(0.5)),
            ms(p99),
            ms(idle.value_at_quantile(0.99)),
            took.as_secs_f64()
        ),
    );
    table.push(if target {
        row.target(
            ">= 1000/s, p99 < 100 ms, 0 twice",
            ok && rate >= 1000.0 && p99 < 100_000,
        )
    } else {
        row.target("0 twice, 0 left", ok)
    });
    table.push(Row::info(
        "claims",
        format!("peak RSS during {runners} runner(s)' claims"),
        format!("{:.1} MB", rss.stop()),
    ));
}

pub async fn run(stack: &mut Stack, table: &mut Table) {
    let gitlab = crate::flood::gitlab(1).await;
    let only: Option<u64> = std::env::var("BENCH_RUNNERS")
        .ok()
        .and_then(|v| v.parse().ok());
    for runners in [1, 4, 50, 200] {
        if only.is_none_or(|o| o == runners) {
            one(stack, table, &gitlab, runners, false).await;
        }
    }
    if only.is_none_or(|o| o == 50) {
        one(stack, table, &gitlab, 50, true).await;
    }
}
