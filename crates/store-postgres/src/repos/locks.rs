//! The advisory locks the repositories take, in one place so each key's meaning
//! and its takers are written down once. All are transaction-scoped
//! (`pg_advisory_xact_lock`): released at commit or rollback, never leaked by a
//! connection going back to the pool.

use diesel::QueryResult;
use diesel::sql_types::{BigInt, Text};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

/// The key of the advisory lock of one MR's attempts, from SQL expressions for its
/// project id and MR number: taken by runner claims and the server's workers alike.
fn mr_lock(project_id: &str, mr_iid: &str) -> String {
    format!("hashtext('reviewd-mr:' || {project_id}::text || ':' || {mr_iid}::text)")
}

/// A boolean SQL expression that tries the MR's lock without waiting, from SQL
/// expressions for its project id and MR number: a runner's claim takes only the
/// MRs it gets, so claims never wait on each other or on a worker.
pub(crate) fn try_lock_mr(project_id: &str, mr_iid: &str) -> String {
    format!("pg_try_advisory_xact_lock({})", mr_lock(project_id, mr_iid))
}

/// Waits for the MR's lock: a worker's attempt and a runner's claim never both see
/// the MR free.
pub(crate) async fn lock_mr(
    conn: &mut AsyncPgConnection,
    project_id: Uuid,
    mr_iid: i64,
) -> QueryResult<()> {
    diesel::sql_query(format!(
        "SELECT pg_advisory_xact_lock({})",
        mr_lock("$1", "$2")
    ))
    .bind::<diesel::sql_types::Uuid, _>(project_id)
    .bind::<BigInt, _>(mr_iid)
    .execute(conn)
    .await?;
    Ok(())
}

/// Serialises appends to one task's log, so line numbers never clash.
pub(crate) async fn lock_task_log(conn: &mut AsyncPgConnection, task_id: Uuid) -> QueryResult<()> {
    diesel::sql_query("SELECT pg_advisory_xact_lock(hashtext('reviewd-task-log:' || $1))")
        .bind::<Text, _>(task_id.to_string())
        .execute(conn)
        .await?;
    Ok(())
}

/// Serialises the start of one periodic job across replicas, so "has it run this
/// period?" and the insert of the new run cannot interleave.
pub(crate) async fn lock_job(conn: &mut AsyncPgConnection, name: &str) -> QueryResult<()> {
    diesel::sql_query("SELECT pg_advisory_xact_lock(hashtext('reviewd-job:' || $1))")
        .bind::<Text, _>(name)
        .execute(conn)
        .await?;
    Ok(())
}
