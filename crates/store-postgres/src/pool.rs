//! The connection pool, built and proven with one round trip at start-up.

use deadpool::managed::{Hook, HookError, Metrics};
use diesel_async::AsyncPgConnection;
use diesel_async::RunQueryDsl;
use diesel_async::pooled_connection::deadpool::{Object, Pool};
use diesel_async::pooled_connection::{
    AsyncDieselConnectionManager, ManagerConfig, RecyclingMethod,
};
use std::time::{Duration, Instant};

/// The shared pool of Postgres connections.
pub type PgPool = Pool<AsyncPgConnection>;
pub(crate) type PgConn = Object<AsyncPgConnection>;

#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("invalid connection settings: {0}")]
    Invalid(String),
    #[error("cannot connect: {0}")]
    Unreachable(String),
}

/// Builds a pool and proves it works with one round trip, so a wrong URL or a
/// stopped server is reported at start-up rather than on the first request.
///
/// # Errors
/// `Invalid` when the pool cannot be built, `Unreachable` when the first query fails
/// or takes longer than `timeout`.
pub async fn connect(
    database_url: &str,
    max_size: usize,
    timeout: Duration,
) -> Result<PgPool, ConnectError> {
    // `Fast`: a checkout costs no round trip. A connection whose socket is seen closed
    // (the server ended it) is still dropped; one that sat idle is proven with
    // `SELECT 1` first, as a firewall may have cut it silently. A backend ended in the
    // instant before a checkout still fails that one request, as it would between a
    // check and the request's own statement.
    let mut config = ManagerConfig::default();
    config.recycling_method = RecyclingMethod::Fast;
    let manager =
        AsyncDieselConnectionManager::<AsyncPgConnection>::new_with_config(database_url, config);
    let pool = Pool::builder(manager)
        .max_size(max_size)
        .pre_recycle(Hook::async_fn(verify_if_idle))
        .wait_timeout(Some(timeout))
        .create_timeout(Some(timeout))
        .runtime(deadpool::Runtime::Tokio1)
        .build()
        .map_err(|e| ConnectError::Invalid(e.to_string()))?;
    match tokio::time::timeout(timeout, ping(&pool)).await {
        Ok(Ok(_)) => Ok(pool),
        Ok(Err(e)) => Err(ConnectError::Unreachable(e)),
        Err(_) => Err(ConnectError::Unreachable(format!(
            "no answer within {timeout:?}"
        ))),
    }
}

/// A connection not checked out for this long is proven before it is handed out
/// again.
const IDLE_BEFORE_CHECK: Duration = Duration::from_secs(5);
/// How long that proof may take.
const IDLE_CHECK_TIMEOUT: Duration = Duration::from_secs(2);

fn verify_if_idle<'a>(
    conn: &'a mut AsyncPgConnection,
    metrics: &'a Metrics,
) -> deadpool::managed::HookFuture<'a, diesel_async::pooled_connection::PoolError> {
    Box::pin(async move {
        if metrics.last_used() < IDLE_BEFORE_CHECK {
            return Ok(());
        }
        // A connection cut silently would not answer at all: give up on it, and the
        // pool takes or opens another.
        match tokio::time::timeout(
            IDLE_CHECK_TIMEOUT,
            diesel::sql_query("SELECT 1").execute(conn),
        )
        .await
        {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(HookError::message(e.to_string())),
            Err(_) => Err(HookError::message("no answer to the idle check")),
        }
    })
}

/// One `SELECT 1` through the pool; returns the round-trip time.
///
/// # Errors
/// The pool's or the server's error, as text.
pub async fn ping(pool: &PgPool) -> Result<Duration, String> {
    let started = Instant::now();
    let mut conn = pool.get().await.map_err(|e| e.to_string())?;
    diesel::sql_query("SELECT 1")
        .execute(&mut conn)
        .await
        .map_err(|e| e.to_string())?;
    Ok(started.elapsed())
}
