//! `just bench` (`scripts/bench.sh`): every benchmark in one run, printed as one table
//! whose rows carry the bound or baseline measured in the same run and the target.
//!
//! The server is the release binary (`REVIEWD_BIN`, which `scripts/bench.sh` builds
//! and sets) as a child process, on a PostgreSQL cluster and a Redis server of the
//! run's own (durable: `fsync` on); the fakes run in this process.
//!
//! Environment: `BENCH_ONLY` (a comma list of sections: memory, webhooks, claims,
//! flood, lists, context; all by default), `BENCH_SECS` (20: each load's length),
//! `BENCH_RUNNERS` (only this count of runners in the claims section),
//! `BENCH_LISTS_SCALE` (1.0: the seeded data's size, see `lists`), `BENCH_OUT` (a
//! file the Markdown table is written to), `BENCH_KEEP=1` (keep the data and logs),
//! `BENCH_TRACE` (a file for the open loop's every request, see `webhooks`),
//! `BENCH_SERVER_<NAME>` (the server's `<NAME>`, for experiments).
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark stops at its first failure, with its message"
)]

mod bounds;
mod claims;
mod context;
mod flood;
#[path = "../../api/helpers.rs"]
#[expect(
    dead_code,
    reason = "the suite uses the request helpers, not the in-process server"
)]
mod helpers;
mod lists;
mod load;
mod memory;
#[path = "../../chaos/process.rs"]
mod process;
#[path = "../../chaos/replica.rs"]
#[expect(
    dead_code,
    reason = "shared with the chaos suite, which uses all of it"
)]
mod replica;
mod stack;
#[path = "../../chaos/stores.rs"]
#[expect(
    dead_code,
    reason = "shared with the chaos suite, which uses all of it"
)]
mod stores;
mod table;
mod webhooks;

use std::process::Command;

/// A numeric setting from the environment, or its default.
pub fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn selected(section: &str) -> bool {
    std::env::var("BENCH_ONLY").map_or(true, |only| only.split(',').any(|s| s.trim() == section))
}

fn output(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}

/// The machine and the versions, as the table's heading.
fn machine() -> String {
    let memory = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            let kib: u64 = m.lines().next()?.split_whitespace().nth(1)?.parse().ok()?;
            Some(format!("{:.1} GiB", kib as f64 / 1_048_576.0))
        })
        .unwrap_or_default();
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            let line = c.lines().find(|l| l.starts_with("model name"))?;
            Some(line.split(':').nth(1)?.trim().to_owned())
        })
        .unwrap_or_default();
    format!(
        "{} cores ({cpu}), {memory}, Linux {}; {}; {}; commit {}",
        std::thread::available_parallelism().map_or(0, usize::from),
        output("uname", &["-r"]),
        output(
            &stores::pg_bin().join("postgres").display().to_string(),
            &["--version"]
        ),
        output("redis-server", &["--version"])
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" "),
        output("git", &["rev-parse", "--short", "HEAD"]),
    )
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    // `cargo test --benches` runs bench targets with `--test`: nothing to do then.
    if std::env::args().any(|a| a == "--test" || a == "--list") {
        return;
    }
    assert!(
        std::env::var_os("REVIEWD_BIN").is_some(),
        "REVIEWD_BIN is not set: run the suite with scripts/bench.sh (or `just bench`), which builds the release server and sets it"
    );
    let machine = machine();
    println!("reviewd benchmarks on {machine}");
    let mut stack = stack::Stack::start();
    let mut table = table::Table::default();
    if selected("memory") {
        memory::run(&mut stack, &mut table).await;
    }
    if selected("webhooks") {
        let bounds = bounds::measure(&mut stack, &mut table);
        webhooks::run(&mut stack, &mut table, &bounds).await;
    }
    if selected("claims") {
        claims::run(&mut stack, &mut table).await;
    }
    if selected("flood") {
        flood::run(&mut stack, &mut table).await;
    }
    if selected("lists") {
        lists::run(&mut stack, &mut table).await;
    }
    if selected("context") {
        context::run(&mut table).await;
    }
    let markdown = format!("Machine: {machine}\n\n{}", table.markdown());
    println!("\n{markdown}");
    println!("{} row(s) missed their target", table.missed());
    if let Ok(path) = std::env::var("BENCH_OUT") {
        std::fs::write(&path, &markdown).expect("BENCH_OUT is writable");
    }
}
