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
    // Anonymous memory is what the server costs its machine: the heap, stacks, caches.
    // The rest is the binary's own pages, mapped from the page cache, which the kernel
    // reclaims under pressure and whose count follows the page cache, not reviewd.
    table.push(
        Row::info(
            "memory",
            "idle anonymous RSS, 5 s after the start",
            format!("{anon:.1} MB ({idle:.1} MB resident, {file:.1} MB of it mapped files)"),
        )
        .bound("issue 38's measure 8 MB", "")
        .target("< 10 MB", anon < 10.0),
    );
}
