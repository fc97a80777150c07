//! The bounds the webhook rows are read against, measured on the same cluster and
//! Redis in the same run: what PostgreSQL commits in single-row inserts a second
//! (pgbench, 32 clients), how long one such commit takes when they are offered at
//! the open loop's 1000/s (pgbench `--rate`, latency from each transaction's
//! scheduled start, as the open loop counts from each request's due time), and the
//! SETs a second Redis takes (redis-benchmark).

use crate::stack::Stack;
use crate::stores::pg_bin;
use crate::table::{Row, Table, ms};
use hdrhistogram::Histogram;
use std::process::Command;

pub struct Bounds {
    /// Single-row insert transactions PostgreSQL commits per second.
    pub pg_inserts: f64,
    /// The latency of those commits offered at 1000/s, µs.
    pub pg_at_1k: Histogram<u64>,
    pub redis_sets: f64,
}

pub fn measure(stack: &mut Stack, table: &mut Table) -> Bounds {
    let url = stack.database();
    stack.psql(
        url.rsplit('/').next().expect("a database name"),
        "CREATE TABLE bench_insert (id bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(), payload text NOT NULL)",
    );
    let script = stack.dir.join("insert.sql");
    std::fs::write(
        &script,
        "INSERT INTO bench_insert (payload) VALUES (repeat('x', 200));\n",
    )
    .expect("the pgbench script");
    let out = Command::new(pg_bin().join("pgbench"))
        .args(["-n", "-c", "32", "-j", "2", "-T", "10", "-f"])
        .arg(&script)
        .arg(&url)
        .output()
        .expect("pgbench runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "pgbench: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // "tps = 14874.123 (without initial connection time)"
    let pg_inserts = text
        .lines()
        .find(|l| l.starts_with("tps = "))
        .and_then(|l| l.split_whitespace().nth(2)?.parse().ok())
        .expect("pgbench's tps line");
    table.push(Row::info(
        "bounds",
        "PostgreSQL single-row insert commits, pgbench 32 clients 10 s",
        format!("{pg_inserts:.0}/s"),
    ));
    let pg_at_1k = pgbench_at_rate(stack, &script, &url, 1000);
    table.push(Row::info(
        "bounds",
        "PostgreSQL single-row insert commits offered at 1000/s, pgbench --rate 8 clients 10 s",
        format!(
            "p50 {}, p99 {}, p99.9 {}",
            ms(pg_at_1k.value_at_quantile(0.5)),
            ms(pg_at_1k.value_at_quantile(0.99)),
            ms(pg_at_1k.value_at_quantile(0.999))
        ),
    ));
    let out = Command::new("redis-benchmark")
        .args(["-p", &stack.redis.port.to_string()])
        .args(["-t", "set", "-c", "32", "-n", "200000", "-q"])
        .output()
        .expect("redis-benchmark runs");
    let text = String::from_utf8_lossy(&out.stdout);
    // "SET: 86132.64 requests per second, p50=0.199 msec", after progress lines ending in \r.
    let redis_sets = text
        .split(['\r', '\n'])
        .filter_map(|l| l.trim().strip_prefix("SET: "))
        .filter_map(|rest| rest.split_whitespace().next()?.parse::<f64>().ok())
        .next_back()
        .expect("redis-benchmark's SET line");
    table.push(Row::info(
        "bounds",
        "Redis SETs, redis-benchmark 32 clients",
        format!("{redis_sets:.0}/s"),
    ));
    Bounds {
        pg_inserts,
        pg_at_1k,
        redis_sets,
    }
}

/// pgbench at a fixed rate with a log of every transaction; its latencies, µs.
/// With `--rate` the log's latency counts from the transaction's scheduled start,
/// so a commit that waited behind a slow one is charged for the wait.
fn pgbench_at_rate(
    stack: &Stack,
    script: &std::path::Path,
    url: &str,
    rate: u32,
) -> Histogram<u64> {
    let prefix = stack.dir.join("pgbench-rate");
    let out = Command::new(pg_bin().join("pgbench"))
        .args([
            "-n",
            "-c",
            "8",
            "-j",
            "2",
            "-T",
            "10",
            "-R",
            &rate.to_string(),
            "-l",
        ])
        .arg("--log-prefix")
        .arg(&prefix)
        .arg("-f")
        .arg(script)
        .arg(url)
        .current_dir(&stack.dir)
        .output()
        .expect("pgbench runs");
    assert!(
        out.status.success(),
        "pgbench --rate: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut latencies = crate::load::histogram();
    let name = prefix
        .file_name()
        .expect("a prefix")
        .to_string_lossy()
        .into_owned();
    for entry in std::fs::read_dir(&stack.dir).expect("the stack's directory") {
        let path = entry.expect("an entry").path();
        if !path
            .file_name()
            .is_some_and(|f| f.to_string_lossy().starts_with(&name))
        {
            continue;
        }
        // "client_id transaction_no time script_no time_epoch time_us [schedule_lag]"
        for line in std::fs::read_to_string(&path)
            .expect("a pgbench log")
            .lines()
        {
            if let Some(us) = line
                .split_whitespace()
                .nth(2)
                .and_then(|t| t.parse::<u64>().ok())
            {
                latencies.record(us.max(1)).expect("a latency in bounds");
            }
        }
        let _ = std::fs::remove_file(&path);
    }
    assert!(
        latencies.len() > u64::from(rate),
        "pgbench logged its transactions"
    );
    latencies
}
