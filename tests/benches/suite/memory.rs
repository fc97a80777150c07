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
}
