//! Queue message ids, written many at a time: the webhook path hands each pair to
//! this writer and answers without a second write of its own. A write takes the
//! pairs of the next [`GATHER`] with the first, and those that arrive while it runs
//! go in the next, so the writes per second stay few whatever the webhook rate.
//!
//! A pair lost with its process (a kill before the write) leaves the task `queued`
//! without a message id: the orphan sweep pushes it again, and a second message for
//! a task is already handled.

use crate::PgPool;
use crate::kept::{bind, kept};
use crate::repos::conn;
use diesel::sql_types::{Array, Text, Uuid as SqlUuid};
use diesel_async::{AsyncConnection, RunQueryDsl, SimpleAsyncConnection};
use std::time::Duration;
use tokio::sync::mpsc;
use uuid::Uuid;

/// The most pairs one statement carries.
const BATCH: usize = 512;
/// How long a write waits for more pairs after its first. At 1,000 webhooks a
/// second, writing each pair as it came made a write (four statements with its
/// transaction) per webhook, which took the database's and the server's CPU from
/// the webhooks themselves; no webhook waits for this write.
const GATHER: Duration = Duration::from_millis(10);
/// Tries per batch before its pairs are left to the orphan sweep.
const TRIES: u32 = 3;

/// Sets each task's message id, unless the task already has one or a runner has
/// claimed it since (a runner's give-back clears the id so that the sweep queues the
/// task again: a late write must not undo that). A worker's attempt in between does
/// not stop the write: a task it gives back must keep its id, or the orphan sweep
/// would queue it again before its retry delay.
const WRITE: &str = "UPDATE review_tasks t SET stream_message_id = v.stream_id
    FROM unnest($1::uuid[], $2::text[]) AS v(id, stream_id)
   WHERE t.id = v.id AND t.stream_message_id IS NULL
     AND t.claimed_at IS NULL AND t.runner_id IS NULL";

/// The write's transaction settings.
///
/// Its commit does not wait for the disk (`synchronous_commit` off): a write lost
/// with the database is a write lost with the process, which the orphan sweep
/// already mends. The webhook's own insert still waits, and each of these writes
/// was a second flush of the WAL per webhook, queued behind the webhooks' own at
/// the disk.
///
/// Sequential scans off: the write is kept prepared, and the plan PostgreSQL keeps
/// for it is made at its sixth run on the connection. Made while the table was
/// small (a fresh install, the first minutes of a flood, before autovacuum analyses
/// it), that plan read the whole table at every write: 5,146 pages for 3 tasks,
/// 10.8 ms, at 60,000 tasks in the bench (`tests/plans.rs`).
const SETTINGS: &str = "SET LOCAL synchronous_commit = off; SET LOCAL enable_seqscan = off";

#[derive(Clone)]
pub(crate) struct StreamIdWriter {
    pairs: mpsc::UnboundedSender<(Uuid, String)>,
}

impl StreamIdWriter {
    /// The writer, on the current tokio runtime; `None` outside one (the caller
    /// then writes each id itself).
    pub(crate) fn spawn(pool: PgPool) -> Option<StreamIdWriter> {
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let (pairs, received) = mpsc::unbounded_channel();
        runtime.spawn(write_all(pool, received));
        Some(StreamIdWriter { pairs })
    }

    /// Hands the pair over; `false` when the writer is gone (its runtime stopped).
    pub(crate) fn note(&self, id: Uuid, stream_id: &str) -> bool {
        self.pairs.send((id, stream_id.to_owned())).is_ok()
    }
}

async fn write_all(pool: PgPool, mut received: mpsc::UnboundedReceiver<(Uuid, String)>) {
    let mut batch = Vec::with_capacity(BATCH);
    while received.recv_many(&mut batch, BATCH).await > 0 {
        tokio::time::sleep(GATHER).await;
        while batch.len() < BATCH
            && let Ok(pair) = received.try_recv()
        {
            batch.push(pair);
        }
        let (ids, stream_ids): (Vec<Uuid>, Vec<String>) = batch.drain(..).unzip();
        for attempt in 1..=TRIES {
            match write(&pool, &ids, &stream_ids).await {
                Ok(()) => break,
                Err(e) if attempt == TRIES => {
                    tracing::warn!(error = %e, tasks = ids.len(), "tasks.stream_ids_unwritten");
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(100 * u64::from(attempt))).await,
            }
        }
    }
}

async fn write(pool: &PgPool, ids: &[Uuid], stream_ids: &[String]) -> Result<(), String> {
    let mut conn = conn(pool).await.map_err(|e| e.to_string())?;
    conn.transaction(async |c| {
        c.batch_execute(SETTINGS).await?;
        // Kept prepared: `sql_query` parsed and planned it again at every write.
        kept(
            WRITE,
            (
                bind::<Array<SqlUuid>, _>(ids),
                bind::<Array<Text>, _>(stream_ids),
            ),
        )
        .execute(c)
        .await
    })
    .await
    .map(drop)
    .map_err(|e: diesel::result::Error| e.to_string())
}
