//! The bounds the webhook rows are read against, measured on the same cluster and
//! Redis in the same run: what PostgreSQL commits in single-row inserts a second
//! (pgbench, 32 clients) and the SETs a second Redis takes (redis-benchmark).

use crate::stack::Stack;
use crate::stores::pg_bin;
use crate::table::{Row, Table};
use std::process::Command;

pub struct Bounds {
    /// Single-row insert transactions PostgreSQL commits per second.
    pub pg_inserts: f64,
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
        redis_sets,
    }
}
