//! Runner claims: R simulated runners poll `GET /api/runners/tasks/pending` back to
//! back until T queued tasks are all claimed (T = max(200, 20·R)); claims a second,
//! the claim call's p99, and no task claimed twice. Rounds are prepared ahead of the
//! claims, the server's default: the clock starts once the preparing settles. 50
//! runners also claim with every round prepared on the claim, preparing ahead off.
//!
//! Then 50 runners polling while tasks arrive at a fixed rate, with and without
//! rounds prepared ahead: how long a task waits from its arrival to its claim, which
//! a backlog prepared before the clock starts does not show.

use crate::helpers::{TestApp, create_gitlab_config, json};
use crate::load::{self, HttpClient};
use crate::stack::Stack;
use crate::table::{Row, Table, ms};
use bytes::Bytes;
use http::Request;
use http_body_util::Full;
use reviewd_testkit::FakeGitlab;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

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

/// What one simulated runner saw: the task ids it claimed with when it had each
/// (the wall clock, as the tasks' `created_at`), the latencies of its claims and of
/// its empty polls, and when it claimed last.
type Polled = (
    Vec<(String, SystemTime)>,
    Vec<Duration>,
    Vec<Duration>,
    Option<Instant>,
);

/// Polls until the queue has answered empty a few times in a row once `arrived`
/// (no more tasks to come).
async fn poll(client: HttpClient, url: String, key: String, arrived: Arc<AtomicBool>) -> Polled {
    let (mut claimed, mut busy, mut idle, mut empty) = (Vec::new(), Vec::new(), Vec::new(), 0);
    let mut last = None;
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
            if arrived.load(Ordering::Relaxed) {
                empty += 1;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        } else {
            busy.push(took);
            last = Some(Instant::now());
            empty = 0;
            let received = SystemTime::now();
            claimed.extend(
                got.iter()
                    .filter_map(|t| Some((t["id"].as_str()?.to_owned(), received))),
            );
        }
    }
    (claimed, busy, idle, last)
}

/// A server for `runners` runners (each with room for `room` tasks) on a fresh
/// database with one synced project: the server, the runners' API key, the project.
async fn serve_runners(
    stack: &mut Stack,
    gitlab: &FakeGitlab,
    name: &str,
    runners: u64,
    room: u64,
    prepared_ahead: bool,
) -> (crate::stack::Server, String, String) {
    let url = stack.database();
    // Runners only: the server's own workers would compete for the tasks.
    let mut env = vec![("REVIEW_WORKERS_ENABLED", "false".to_owned())];
    if prepared_ahead {
        // The default: the preparer runs with the periodic jobs (on in production,
        // off in the suite's other sections). Its age is set all the same, so that a
        // binary from before the default measures the same thing.
        env.push(("PERIODIC_JOBS_ENABLED", "true".to_owned()));
        env.push(("RUNNER_PREPARED_MAX_AGE_SECS", "300".to_owned()));
    } else {
        env.push(("RUNNER_PREPARED_MAX_AGE_SECS", "0".to_owned()));
    }
    let server = stack.server(name, &url, &env).await;
    let app = &server.app;
    let config = create_gitlab_config(app, gitlab).await;
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
            .header("x-runner-max-concurrency", room.to_string())
            .send()
            .await
            .expect("registered");
        assert_eq!(response.status(), reqwest::StatusCode::OK);
    }
    let project = app.sql("SELECT id FROM projects LIMIT 1");
    (server, key, project)
}

/// The runners' polls, started at once; each stops as [`poll`] says.
fn start_polls(
    app: &TestApp,
    key: &str,
    runners: u64,
    arrived: &Arc<AtomicBool>,
) -> Vec<tokio::task::JoinHandle<Polled>> {
    let http = load::client();
    (0..runners)
        .map(|r| {
            let url = app.url(&format!(
                "/api/runners/tasks/pending?runnerId=bench-{r}&limit=1"
            ));
            tokio::spawn(poll(http.clone(), url, key.to_owned(), Arc::clone(arrived)))
        })
        .collect()
}

/// The polls' results together: each task's claim count and when a runner last
/// had it, the claim and empty-poll latencies, and the last claim (`started` if none).
async fn gather(
    polls: Vec<tokio::task::JoinHandle<Polled>>,
    started: Instant,
) -> (
    HashMap<String, (u32, SystemTime)>,
    Vec<Duration>,
    Vec<Duration>,
    Instant,
) {
    let mut counts: HashMap<String, (u32, SystemTime)> = HashMap::new();
    let (mut busy, mut idle) = (Vec::new(), Vec::new());
    let mut last_claim = started;
    for poll in futures_util::future::join_all(polls).await {
        let (claimed, b, i, last) = poll.expect("a runner");
        for (id, at) in claimed {
            let entry = counts.entry(id).or_insert((0, at));
            *entry = (entry.0 + 1, at);
        }
        last_claim = last_claim.max(last.unwrap_or(started));
        busy.extend(b);
        idle.extend(i);
    }
    (counts, busy, idle, last_claim)
}

/// Claims in all, and tasks claimed more than once.
fn tally(counts: &HashMap<String, (u32, SystemTime)>) -> (u32, usize) {
    let claimed = counts.values().map(|(n, _)| n).sum();
    let doubles = counts.values().filter(|(n, _)| *n > 1).count();
    (claimed, doubles)
}

async fn one(
    stack: &mut Stack,
    table: &mut Table,
    gitlab: &FakeGitlab,
    runners: u64,
    prepared_ahead: bool,
) {
    let tasks = (20 * runners).max(200);
    // Room for every task it may claim (the protocol's most is 1000).
    let (server, key, project) = serve_runners(
        stack,
        gitlab,
        &format!("claims{runners}{prepared_ahead}"),
        runners,
        tasks.min(1000),
        prepared_ahead,
    )
    .await;
    let app = &server.app;
    app.sql(&format!(
        "INSERT INTO review_tasks (triggered_by, project_id, mr_iid, head_sha, status) \
         SELECT 'auto', '{project}', n, lpad(to_hex(n), 40, '0'), 'queued' FROM generate_series(1, {tasks}) n"
    ));
    let (prepared, took) = settle_preparing(app, tasks).await;

    let rss = server.rss_sampler();
    let started = Instant::now();
    let polls = start_polls(app, &key, runners, &Arc::new(AtomicBool::new(true)));
    let (counts, busy, idle, last_claim) = gather(polls, started).await;
    let (claimed, doubles) = tally(&counts);
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
    let target = runners == 50 && prepared_ahead;
    let row = Row::info(
        "claims",
        format!(
            "{runners} runner(s), {tasks} tasks, limit 1{}",
            rounds(prepared_ahead)
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
        rss.stop(),
    ));
}

/// Tasks arriving a second in the arrival runs: about what 50 runners claim a
/// second with every round prepared inline, so that both runs keep up.
const ARRIVALS_PER_SEC: u64 = 150;

/// Says that all tasks have arrived when dropped: at the end of the arrivals, or when
/// they fail, so that the runners stop polling and the failure is reported.
struct Arrived(Arc<AtomicBool>);

impl Drop for Arrived {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Inserts `per_tick` queued tasks of new MRs every 100 ms, `ticks` times, numbered
/// from 1, then says that all have arrived.
fn arrive(
    database_url: String,
    project: String,
    per_tick: u64,
    ticks: u64,
    arrived: Arc<AtomicBool>,
) {
    let _arrived = Arrived(arrived);
    let started = Instant::now();
    for tick in 0..ticks {
        let first = tick * per_tick + 1;
        let sql = format!(
            "INSERT INTO review_tasks (triggered_by, project_id, mr_iid, head_sha, status) \
             SELECT 'auto', '{project}', n, lpad(to_hex(n), 40, '0'), 'queued' \
             FROM generate_series({first}, {}) n",
            first + per_tick - 1
        );
        crate::helpers::psql(&database_url, &sql);
        // On the schedule, not 100 ms after each insert: a slow insert is caught up.
        let next = Duration::from_millis(100 * (tick + 1));
        std::thread::sleep(next.saturating_sub(started.elapsed()));
    }
}

/// 50 runners polling while tasks arrive at [`ARRIVALS_PER_SEC`] for `BENCH_SECS`
/// (at most 10 s): claims a second, the claim's p99, and each task's wait from its
/// arrival (`created_at`) to a runner's having it, p50 and p99.
async fn arriving(stack: &mut Stack, table: &mut Table, gitlab: &FakeGitlab, prepared_ahead: bool) {
    const RUNNERS: u64 = 50;
    let ticks = crate::env_number("BENCH_SECS", 20).clamp(1, 10) * 10;
    let per_tick = ARRIVALS_PER_SEC / 10;
    let tasks = ticks * per_tick;
    let (server, key, project) = serve_runners(
        stack,
        gitlab,
        &format!("arriving{prepared_ahead}"),
        RUNNERS,
        tasks.min(1000),
        prepared_ahead,
    )
    .await;
    let app = &server.app;
    let rss = server.rss_sampler();
    let arrived = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let polls = start_polls(app, &key, RUNNERS, &arrived);
    let arrivals = {
        let (url, arrived) = (app.database_url.clone(), Arc::clone(&arrived));
        std::thread::spawn(move || arrive(url, project, per_tick, ticks, arrived))
    };
    let (counts, busy, _idle, last_claim) = gather(polls, started).await;
    arrivals.join().expect("the arrivals");
    let (claimed, doubles) = tally(&counts);
    let left = count(
        app,
        "SELECT count(*) FROM review_tasks WHERE status = 'queued'",
    );
    // From the task's insert to the runner's having it with its round.
    let created: HashMap<String, f64> = app
        .sql("SELECT id || ' ' || extract(epoch FROM created_at) FROM review_tasks")
        .lines()
        .filter_map(|l| {
            let (id, at) = l.split_once(' ')?;
            Some((id.to_owned(), at.parse().ok()?))
        })
        .collect();
    let waits: Vec<Duration> = counts
        .iter()
        .filter_map(|(id, (_, had))| {
            let had = had
                .duration_since(SystemTime::UNIX_EPOCH)
                .ok()?
                .as_secs_f64();
            Some(Duration::from_secs_f64((had - created.get(id)?).max(0.0)))
        })
        .collect();
    let waits = load::histogram_of(&waits);
    let window = last_claim
        .duration_since(started)
        .max(Duration::from_millis(1));
    let busy = load::histogram_of(&busy);
    let ok = doubles == 0 && left == 0 && u64::from(claimed) == tasks;
    table.push(
        Row::info(
            "claims",
            format!(
                "{RUNNERS} runners while {ARRIVALS_PER_SEC} tasks/s arrive for {} s{}",
                ticks / 10,
                rounds(prepared_ahead)
            ),
            format!(
                "{:.0} claims/s; claim p50 {}, p99 {}; arrival to runner p50 {}, p99 {}; claimed twice {doubles}, left {left}",
                f64::from(claimed) / window.as_secs_f64(),
                ms(busy.value_at_quantile(0.5)),
                ms(busy.value_at_quantile(0.99)),
                ms(waits.value_at_quantile(0.5)),
                ms(waits.value_at_quantile(0.99)),
            ),
        )
        .target("0 twice, 0 left", ok),
    );
    table.push(Row::info(
        "claims",
        format!("peak RSS during the arrivals{}", rounds(prepared_ahead)),
        rss.stop(),
    ));
}

/// Where the rounds of a run's tasks were prepared, as its rows say.
fn rounds(prepared_ahead: bool) -> &'static str {
    if prepared_ahead {
        ", rounds prepared ahead (the default)"
    } else {
        ", rounds prepared on the claim (RUNNER_PREPARED_MAX_AGE_SECS=0)"
    }
}

pub async fn run(stack: &mut Stack, table: &mut Table) {
    let gitlab = crate::flood::gitlab(1).await;
    let only: Option<u64> = std::env::var("BENCH_RUNNERS")
        .ok()
        .and_then(|v| v.parse().ok());
    for runners in [1, 4, 50, 200] {
        if only.is_none_or(|o| o == runners) {
            one(stack, table, &gitlab, runners, true).await;
        }
    }
    if only.is_none_or(|o| o == 50) {
        one(stack, table, &gitlab, 50, false).await;
        for prepared_ahead in [false, true] {
            arriving(stack, table, &gitlab, prepared_ahead).await;
        }
    }
}
