//! What the pool hands out works when the server has closed the connection
//! meanwhile: a terminated backend (a restart, an administrator) is dropped and
//! replaced, not handed to a request that then fails. The pool does not prove a
//! connection with `SELECT 1` at each checkout (a round trip per webhook, see
//! docs/benchmarks.md), only one idle for 5 s: a closed one is known by its socket.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use diesel::QueryableByName;
use diesel::sql_types::Integer;
use diesel_async::RunQueryDsl;
use reviewd_store_postgres::{PgPool, connect};
use reviewd_testkit::TestDb;
use std::time::Duration;

#[derive(QueryableByName)]
struct Pid {
    #[diesel(sql_type = Integer)]
    pid: i32,
}

async fn backend_pid(pool: &PgPool) -> i32 {
    let mut conn = pool.get().await.unwrap();
    let row: Pid = diesel::sql_query("SELECT pg_backend_pid() AS pid")
        .get_result(&mut conn)
        .await
        .unwrap();
    row.pid
}

#[tokio::test]
async fn a_connection_the_server_closed_is_replaced_not_handed_out() {
    let db = TestDb::new().await;
    // One connection: the pool has no other to fall back on.
    let pool = connect(db.url(), 1, Duration::from_secs(10)).await.unwrap();
    let first = backend_pid(&pool).await;
    assert_eq!(backend_pid(&pool).await, first, "the connection is reused");

    let admin = db.pool().await;
    let mut conn = admin.get().await.unwrap();
    diesel::sql_query(format!("SELECT pg_terminate_backend({first})"))
        .execute(&mut conn)
        .await
        .unwrap();
    // The client learns of the close from its socket, as after a restart.
    tokio::time::sleep(Duration::from_millis(300)).await;

    let second = backend_pid(&pool).await;
    assert_ne!(second, first, "a new connection replaced the closed one");
    assert_eq!(backend_pid(&pool).await, second);
}
