//! The fault-injection suite: the real server binary as child processes, each
//! scenario on PostgreSQL and Redis instances of its own that it kills and restarts,
//! N merge requests through a fake GitLab and a fake AI of fixed latency; at the end
//! it counts, per MR, completed and failed reviews, MRs without an outcome, comments
//! posted more than once, tasks stuck and unexpected 5xx answers, prints one table row
//! per scenario and asserts the zeros.
//!
//! Slow (minutes) and heavy (a PostgreSQL cluster per scenario), so, like an ignored
//! test, it runs only when asked: `scripts/chaos.sh` (or `just chaos`), or
//! `cargo test -p reviewd-tests --test chaos -- --ignored [scenario names]`.
//! It needs the server and the runner built (`REVIEWD_BIN`, else
//! `$CARGO_TARGET_DIR/debug/reviewd`; `RUNNER_BIN`, else `reviewd-runner` beside it), git,
//! PostgreSQL's server binaries under `/usr/lib/postgresql`, `redis-server`, and root
//! (PostgreSQL runs through `runuser -u postgres`).
//!
//! Environment: `CHAOS_MRS` (10), `CHAOS_SCENARIOS` (a comma list of names; all by
//! default), `CHAOS_FLOOD_MRS` (200: the MRs `webhook_flood` sends webhooks for),
//! `CHAOS_DEADLINE_SECS` (120: how long after the fault every MR must have
//! its outcome), `CHAOS_INCLUDE_IGNORED=1` (run scenarios marked ignored too),
//! `CHAOS_KEEP=1` (keep each scenario's logs and data; a failing one always keeps them).
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a scenario stops at its first failure, with its message"
)]

mod agent;
#[path = "../api/helpers.rs"]
#[expect(
    dead_code,
    reason = "the suite uses the request helpers, not the in-process server"
)]
mod helpers;
mod outside;
mod process;
mod proxy;
mod replica;
mod repository;
mod run;
mod scenarios;
mod stores;
mod tally;

use std::process::ExitCode;

/// A numeric setting from the environment, or its default.
pub fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Whether a scenario is selected by `CHAOS_SCENARIOS` and the command line's names.
fn selected(name: &str, filters: &[String]) -> bool {
    let listed: Vec<String> = std::env::var("CHAOS_SCENARIOS")
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    (listed.is_empty() || listed.iter().any(|l| l == name))
        && (filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str())))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        return ExitCode::SUCCESS;
    }
    if !args
        .iter()
        .any(|a| a == "--ignored" || a == "--include-ignored")
    {
        println!(
            "chaos: skipped (minutes of fault injection); run scripts/chaos.sh, or pass --ignored"
        );
        return ExitCode::SUCCESS;
    }
    let filters: Vec<String> = args.into_iter().filter(|a| !a.starts_with('-')).collect();
    let mrs = i64::try_from(env_number("CHAOS_MRS", 10).max(1)).unwrap_or(10);
    let include_ignored = std::env::var("CHAOS_INCLUDE_IGNORED").is_ok_and(|v| v == "1");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let mut failed = Vec::new();
    for scenario in scenarios::ALL.iter().filter(|s| selected(s.name, &filters)) {
        if let (Some(why), false) = (scenario.ignored, include_ignored) {
            println!("chaos: {} ignored: {why}", scenario.name);
            continue;
        }
        println!("chaos: {} with {mrs} MRs", scenario.name);
        // Its own task: a failing scenario panics, its world is dropped (every child
        // process killed), and the next one runs.
        let outcome = runtime.block_on(async { tokio::spawn((scenario.run)(mrs)).await });
        if outcome.is_err() {
            failed.push(scenario.name);
        }
    }
    println!("\n{}", tally::HEADER);
    for row in tally::TABLE.lock().map(|t| t.clone()).unwrap_or_default() {
        println!("{row}");
    }
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        println!("\nchaos: failed: {}", failed.join(", "));
        ExitCode::FAILURE
    }
}
