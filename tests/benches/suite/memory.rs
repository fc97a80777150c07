//! Start time and idle memory: the server on a migrated database, started again
//! (what a deploy or a restart costs), and its resident set after 5 s of nothing.

use crate::stack::Stack;
use crate::table::{Row, Table};
use std::time::Duration;

pub async fn run(stack: &mut Stack, table: &mut Table) {
    let url = stack.database();
    let mut server = stack.server("memory", &url, &[]).await;
    table.push(Row::info(
        "memory",
        "first start on an empty database, migrations included",
        format!("{:.2} s", server.first_start.as_secs_f64()),
    ));
    let mut starts = Vec::new();
    for _ in 0..5 {
        server.replica.kill();
        starts.push(server.replica.start().await);
    }
    starts.sort();
    let median = starts[starts.len() / 2].as_secs_f64();
    table.push(
        Row::info(
            "memory",
            "start to the first healthy answer (migrated database, median of 5)",
            format!("{median:.3} s"),
        )
        .bound("issue's baseline 0.26 s", "")
        .target("< 0.3 s", median < 0.3),
    );
    tokio::time::sleep(Duration::from_secs(5)).await;
    let idle = crate::stack::megabytes(server.rss_kib());
    let (anon, file) = crate::stack::rss_parts(server.pid());
    table.push(
        Row::info(
            "memory",
            "idle RSS, 5 s after the start",
            format!("{idle:.1} MB ({anon:.1} MB anonymous, {file:.1} MB of mapped files)"),
        )
        .bound("issue's baseline 17 MB", "")
        .target("< 20 MB", idle < 20.0),
    );
    if let Some(layout) = start_layout() {
        table.push(Row::info(
            "memory",
            "start-up functions of crates/server/link/startup.order found in the binary",
            layout,
        ));
    }
}

/// How many of the functions the release link places first the binary still has: a
/// list gone stale (a toolchain or dependency upgrade renames them) is skipped by the
/// linker without a word, and the idle RSS grows back; `scripts/link-order.sh` writes
/// it anew. None when `nm` or the list is missing.
fn start_layout() -> Option<String> {
    let bin = std::env::var_os("REVIEWD_BIN")?;
    let list = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../crates/server/link/startup.order");
    let listed = std::fs::read_to_string(list).ok()?;
    let out = std::process::Command::new("nm")
        .arg("--defined-only")
        .arg(bin)
        .output()
        .ok()?;
    let defined: std::collections::HashSet<&str> = std::str::from_utf8(&out.stdout)
        .ok()?
        .lines()
        .filter_map(|line| line.split_whitespace().nth(2))
        .collect();
    let names: Vec<&str> = listed.lines().filter(|l| !l.is_empty()).collect();
    let found = names.iter().filter(|n| defined.contains(*n)).count();
    Some(format!("{found} of {}", names.len()))
}
