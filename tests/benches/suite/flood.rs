//! Reviews completed during a webhook flood, against the provider bound: with K AI
//! calls in flight, a provider answering in L and F files per MR (one call each,
//! and one more for the MR's summary note when F ≥ 2), no deployment completes
//! more than K / (L × C) reviews a second, C being the calls per MR. The fakes answer
//! any MR; the flood offers webhooks open loop while the reviews run.

use crate::helpers::{create_gitlab_config, json};
use crate::load;
use crate::stack::Stack;
use crate::table::{Row, Table, percent};
use crate::webhooks::webhooks;
use reviewd_testkit::FakeGitlab;
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, Request, ResponseTemplate};

/// One added line per file, which the fake AI comments on.
const DIFF: &str = "@@ -1,2 +1,3 @@\n fn a() {\n+    let x = b().unwrap();\n }\n";

/// Every MR of project 1, at head `{iid:040x}` (as the webhooks say), with `files` files.
pub async fn gitlab(files: usize) -> FakeGitlab {
    let gitlab = FakeGitlab::start("glpat-bench").await;
    gitlab.with_projects(1, "svc").await;
    let diffs: Vec<Value> = (0..files)
        .map(|i| {
            json!({ "old_path": format!("src/f{i}.rs"), "new_path": format!("src/f{i}.rs"),
                "new_file": false, "renamed_file": false, "deleted_file": false, "diff": DIFF })
        })
        .collect();
    Mock::given(method("GET"))
        .and(path_regex(r"^/api/v4/projects/1/merge_requests/\d+$"))
        .respond_with(|req: &Request| {
            let iid: u64 = req
                .url
                .path()
                .rsplit('/')
                .next()
                .and_then(|s| s.parse().ok())
                .unwrap_or(1);
            let head = format!("{iid:040x}");
            ResponseTemplate::new(200).set_body_json(json!({
                "id": iid, "iid": iid, "title": "Bench", "state": "opened", "draft": false,
                "web_url": format!("https://gitlab.example.com/group/svc-1/-/merge_requests/{iid}"),
                "source_branch": "b", "target_branch": "main", "sha": head,
                "author": { "id": 51, "username": "dev" },
                "diff_refs": { "base_sha": "b0", "start_sha": "b0", "head_sha": head },
            }))
        })
        .mount(&gitlab.server)
        .await;
    Mock::given(method("GET"))
        .and(path_regex(r"^/api/v4/projects/1/merge_requests/\d+/diffs$"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(diffs)
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
    gitlab
}

fn completed(app: &crate::helpers::TestApp) -> u64 {
    app.sql("SELECT count(*) FROM review_tasks WHERE status = 'completed'")
        .parse()
        .expect("a count")
}

pub async fn run(stack: &mut Stack, table: &mut Table) {
    let secs = crate::env_number("BENCH_SECS", 20);
    let (k, latency_ms, files, rate) = (
        crate::env_number("BENCH_FLOOD_CONCURRENCY", 8),
        crate::env_number("BENCH_FLOOD_AI_LATENCY_MS", 100),
        crate::env_number("BENCH_FLOOD_FILES", 3),
        crate::env_number("BENCH_FLOOD_RATE", 500),
    );
    let gitlab = gitlab(usize::try_from(files).unwrap_or(3)).await;
    let ai = reviewd_testkit::fake_openai(Duration::from_millis(latency_ms), |_| {
        json!({ "summary": "ok", "comments": [{ "line": 2, "severity": "warning", "message": "unwrap" }] })
    })
    .await;
    let url = stack.database();
    let server = stack
        .server(
            "flood",
            &url,
            &[
                ("AI_REVIEW_CONCURRENCY", k.to_string()),
                ("PROVIDERA_ENDPOINT", format!("{}/v1", ai.uri())),
                ("PROVIDERA_API_KEY", "sk-bench".to_owned()),
                ("PROVIDERA_MODEL", "bench-model".to_owned()),
            ],
        )
        .await;
    let config = create_gitlab_config(&server.app, &gitlab).await;
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
    let rss = server.rss_sampler();
    let (client, pid) = (load::client(), server.pid());
    let hooks = webhooks(&server.app, 1, "hook-secret-a");
    let flood = tokio::spawn(async move {
        load::open(
            &client,
            hooks,
            rate as f64,
            Duration::from_secs(secs),
            512,
            pid,
        )
        .await
    });
    // The first seconds fill the pipeline: the rate is read over the rest.
    let warm = Duration::from_secs((secs / 4).max(2));
    tokio::time::sleep(warm).await;
    let (start, from) = (completed(&server.app), Instant::now());
    let offered = flood.await.expect("the flood");
    let window = from.elapsed();
    let done = completed(&server.app) - start;
    let reviews_per_sec = done as f64 / window.as_secs_f64();
    let calls =
        files + u64::from(files >= reviewd_domain::review::mr_summary::FILES_WORTH_A_CALL as u64);
    let bound = k as f64 / (latency_ms as f64 / 1000.0 * calls as f64);
    table.push(
        Row::info(
            "flood",
            format!(
                "reviews completed during a flood of {rate} webhooks/s ({} answered 200 of {}), {files} files per MR, provider latency {latency_ms} ms, AI_REVIEW_CONCURRENCY {k}",
                offered.count(http::StatusCode::OK),
                offered.answered
            ),
            format!("{reviews_per_sec:.1}/s over {:.0} s", window.as_secs_f64()),
        )
        .bound(
            format!("K/(L·C) = {bound:.1}/s, C = {calls} calls per MR"),
            percent(reviews_per_sec, bound),
        )
        .target(">= 90 %", reviews_per_sec >= 0.9 * bound),
    );
    table.push(Row::info(
        "flood",
        "webhook latency during the flood",
        format!(
            "p50 {}, p99 {}",
            crate::table::ms(offered.p(50.0)),
            crate::table::ms(offered.p(99.0))
        ),
    ));
    table.push(Row::info("flood", "peak RSS during the flood", rss.stop()));
}
