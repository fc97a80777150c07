//! Load script for the dashboard: the server time of every page with 10k reviews
//! (50k comments) and 500 projects seeded, and each page's weight.
//!
//! Bounds (issue 12): p95 under 50 ms a page, under 100 KB before images. Times are
//! measured by the client on loopback, so they are an upper bound of the server's.
//!
//! Environment: BENCH_REVIEWS (10000), BENCH_PROJECTS (500), BENCH_ROUNDS (40 requests
//! a page).
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
use helpers::TestApp;
use std::time::{Duration, Instant};

const P95_BOUND: Duration = Duration::from_millis(50);
const WEIGHT_BOUND: usize = 100 * 1024;

/// 500 projects, 10k reviews spread over 30 days, a round, 3 files and 5 comments each.
fn seed(app: &TestApp, projects: u64, reviews: u64) {
    app.sql(
        "INSERT INTO platform_configs (name, platform_type, base_url, is_default) \
         VALUES ('Bench GitLab', 'hostA', 'https://gitlab.example.com', true)",
    );
    app.sql(&format!(
        "INSERT INTO projects (platform_config_id, platform_type, platform_project_id, name, full_path, web_url, webhook_status) \
         SELECT (SELECT id FROM platform_configs LIMIT 1), 'hostA', g::text, 'svc-' || g, 'group/svc-' || g, \
                'https://gitlab.example.com/group/svc-' || g, (ARRAY['active','error',NULL])[1 + g % 3] \
         FROM generate_series(1, {projects}) g"
    ));
    app.sql(&format!(
        "WITH p AS (SELECT id, name, row_number() OVER (ORDER BY name) AS n FROM projects) \
         INSERT INTO reviews (project_id, project_name, mr_iid, mr_title, mr_url, source_branch, target_branch, status, \
                              ai_provider, ai_model, comment_count, triggered_by, overall_rating, score, summary, \
                              head_commit_sha, error_message, created_at, completed_at) \
         SELECT p.id, p.name, g, 'Change number ' || g, 'https://gitlab.example.com/mr/' || g, 'feature-' || g, 'main', \
                (ARRAY['completed','completed','completed','failed','pending'])[1 + g % 5], 'providerA', 'model', 5, \
                (ARRAY['auto','manual'])[1 + g % 2], (ARRAY['A','B','C','D','F'])[1 + g % 5], 50 + g % 50, \
                'A summary of change ' || g, md5(g::text), CASE WHEN g % 5 = 3 THEN 'the AI provider timed out' END, \
                now() - (g % 30) * interval '1 day' - (g % 1440) * interval '1 minute', now() \
         FROM generate_series(1, {reviews}) g JOIN p ON p.n = 1 + g % {projects}"
    ));
    app.sql(
        "INSERT INTO review_rounds (review_id, round_number, head_sha, file_count, comment_count) \
         SELECT id, 1, head_commit_sha, 3, 5 FROM reviews",
    );
    app.sql(
        "INSERT INTO review_files (review_id, round_id, file_path, change_type, status, comment_count) \
         SELECT r.review_id, r.id, 'src/file_' || f || '.rs', 'modified', 'completed', 2 \
         FROM review_rounds r, generate_series(1, 3) f",
    );
    app.sql(
        "INSERT INTO review_comments (review_id, round_id, file_id, file_path, line_number, severity, message, fingerprint) \
         SELECT f.review_id, f.round_id, f.id, f.file_path, c, (ARRAY['info','warning','error'])[1 + c % 3], \
                'Comment ' || c || ' on ' || f.file_path, md5(f.id::text || c) \
         FROM review_files f, generate_series(1, 2) c WHERE f.file_path <> 'src/file_3.rs' \
         UNION ALL \
         SELECT f.review_id, f.round_id, f.id, f.file_path, 9, 'info', 'Last comment', md5(f.id::text) \
         FROM review_files f WHERE f.file_path = 'src/file_3.rs'",
    );
    app.sql("ANALYZE");
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    if std::env::args().any(|a| a == "--test" || a == "--list") {
        return;
    }
    let reviews = env("BENCH_REVIEWS", 10_000);
    let projects = env("BENCH_PROJECTS", 500);
    let rounds = env("BENCH_ROUNDS", 40) as usize;
    let app = TestApp::spawn_with(&[("HTTP_WORKERS", "2".to_owned())]).await;
    let started = Instant::now();
    seed(&app, projects, reviews);
    println!(
        "seeded {reviews} reviews, {} comments, {projects} projects in {:.1} s",
        app.sql("SELECT count(*) FROM review_comments"),
        started.elapsed().as_secs_f64()
    );
    let review = app
        .sql("SELECT id FROM reviews WHERE status = 'completed' ORDER BY created_at DESC LIMIT 1");
    let project = app.sql("SELECT id FROM projects ORDER BY name LIMIT 1");
    let session = app.root().await;
    let pages = [
        "/".to_owned(),
        "/reviews".to_owned(),
        "/reviews?status=failed&startDate=2026-01-01".to_owned(),
        format!("/reviews/{review}"),
        "/projects".to_owned(),
        "/projects?search=svc-4&webhookStatus=error".to_owned(),
        format!("/projects/{project}"),
        "/platforms".to_owned(),
        "/manual".to_owned(),
        "/catalog".to_owned(),
        "/runners".to_owned(),
        "/notifications".to_owned(),
        "/health".to_owned(),
        "/settings".to_owned(),
    ];
    println!(
        "\n{:<48} {:>9} {:>9} {:>9} {:>10}   bound: p95 < {} ms, < {} KB",
        "page",
        "p50 ms",
        "p95 ms",
        "max ms",
        "KB",
        P95_BOUND.as_millis(),
        WEIGHT_BOUND / 1024
    );
    let mut failures = Vec::new();
    for page in &pages {
        let mut times = Vec::with_capacity(rounds);
        let mut weight = 0;
        for _ in 0..rounds {
            let t = Instant::now();
            let r = session.get(page).await;
            assert_eq!(r.status(), reqwest::StatusCode::OK, "{page}");
            weight = r.bytes().await.unwrap().len();
            times.push(t.elapsed());
        }
        times.sort_unstable();
        let (p50, p95) = (percentile(&times, 0.5), percentile(&times, 0.95));
        let ok = p95 < P95_BOUND && weight < WEIGHT_BOUND;
        if !ok {
            failures.push(page.clone());
        }
        println!(
            "{:<48} {:>9.2} {:>9.2} {:>9.2} {:>10.1}   {}",
            page,
            p50.as_secs_f64() * 1e3,
            p95.as_secs_f64() * 1e3,
            times.last().unwrap().as_secs_f64() * 1e3,
            weight as f64 / 1024.0,
            if ok { "ok" } else { "OVER" }
        );
    }
    println!(
        "\n{} of {} pages within the bounds{}",
        pages.len() - failures.len(),
        pages.len(),
        if failures.is_empty() {
            String::new()
        } else {
            format!("; over: {failures:?}")
        }
    );
}
