//! The log lines a runner streams for a task it holds.

use crate::PgPool;
use crate::error::map_diesel_error;
use crate::repos::conn;
use crate::repos::locks::lock_task_log;
use crate::schema::review_task_logs;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use reviewd_domain::ports::RepoError;
use uuid::Uuid;

pub(super) async fn append_logs(
    pool: &PgPool,
    task_id: Uuid,
    lines: &[String],
) -> Result<u64, RepoError> {
    let mut conn = conn(pool).await?;
    let lines = lines.to_vec();
    conn.transaction(async move |conn| {
        lock_task_log(conn, task_id).await?;
        let last: Option<i32> = review_task_logs::table
            .filter(review_task_logs::task_id.eq(task_id))
            .select(diesel::dsl::max(review_task_logs::line_no))
            .first(conn)
            .await?;
        let start = last.unwrap_or(0);
        let rows: Vec<_> = lines
            .iter()
            .enumerate()
            .map(|(i, line)| {
                (
                    review_task_logs::task_id.eq(task_id),
                    review_task_logs::line_no.eq(start + i32::try_from(i).unwrap_or(i32::MAX) + 1),
                    review_task_logs::message.eq(line),
                )
            })
            .collect();
        diesel::insert_into(review_task_logs::table)
            .values(rows)
            .execute(conn)
            .await?;
        Ok(u64::try_from(start).unwrap_or(0) + lines.len() as u64)
    })
    .await
    .map_err(map_diesel_error)
}

pub(super) async fn logs(
    pool: &PgPool,
    task_id: Uuid,
) -> Result<Vec<(i32, String, DateTime<Utc>)>, RepoError> {
    let mut conn = conn(pool).await?;
    review_task_logs::table
        .filter(review_task_logs::task_id.eq(task_id))
        .order(review_task_logs::line_no)
        .select((
            review_task_logs::line_no,
            review_task_logs::message,
            review_task_logs::created_at,
        ))
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)
}
