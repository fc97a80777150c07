//! One review's detail and what hangs off it: its comments (filtered, a window of
//! them), the files of its latest round, its rounds, feedback, model calls and the
//! log lines of its tasks.

use crate::PgPool;
use crate::error::map_diesel_error;
use crate::repos::{Window, conn, window};
use crate::rows::{AiLogRow, CommentRow, DetailRow, FeedbackRow, FileRow, RoundRow, TaskLogRow};
use crate::schema::{
    ai_call_logs, review_comments, review_feedbacks, review_files, review_rounds, review_task_logs,
    review_tasks, reviews,
};
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use reviewd_domain::model::review::AiCallStatus;
use reviewd_domain::model::review_views::{
    AiLogItem, CommentItem, FeedbackItem, FileItem, ReviewDetail, RoundItem, TaskLogLine,
    TokenTotals,
};
use reviewd_domain::ports::RepoError;
use uuid::Uuid;

pub(super) async fn detail(pool: &PgPool, id: Uuid) -> Result<ReviewDetail, RepoError> {
    let mut conn = conn(pool).await?;
    let row: DetailRow = reviews::table
        .find(id)
        .select(DetailRow::as_select())
        .first(&mut conn)
        .await
        .map_err(map_diesel_error)?;
    let mut detail = ReviewDetail::try_from(row)?;
    // The calls' tokens, summed through the index on (review_id, created_at).
    let (prompt, completion, total, cached): (Option<i64>, Option<i64>, Option<i64>, Option<i64>) =
        ai_call_logs::table
            .filter(ai_call_logs::review_id.eq(id))
            .select((
                diesel::dsl::sum(ai_call_logs::prompt_tokens),
                diesel::dsl::sum(ai_call_logs::completion_tokens),
                diesel::dsl::sum(ai_call_logs::total_tokens),
                diesel::dsl::sum(ai_call_logs::cached_tokens),
            ))
            .first(&mut conn)
            .await
            .map_err(map_diesel_error)?;
    detail.tokens = TokenTotals {
        prompt: prompt.unwrap_or(0),
        completion: completion.unwrap_or(0),
        total: total.unwrap_or(0),
        cached: cached.unwrap_or(0),
    };
    Ok(detail)
}

pub(super) async fn comments(
    pool: &PgPool,
    id: Uuid,
    file_path: Option<&str>,
    severity: Option<&str>,
    limit: u32,
    offset: u64,
) -> Result<(Vec<CommentItem>, u64), RepoError> {
    let mut conn = conn(pool).await?;
    let query = || {
        let mut q = review_comments::table
            .inner_join(review_rounds::table)
            .filter(review_comments::review_id.eq(id))
            .into_boxed::<Pg>();
        if let Some(p) = file_path {
            q = q.filter(review_comments::file_path.eq(p.to_owned()));
        }
        if let Some(s) = severity {
            q = q.filter(review_comments::severity.eq(s.to_owned()));
        }
        q
    };
    let rows = query()
        .order((
            review_comments::file_path.asc(),
            review_comments::line_number.asc(),
            review_comments::created_at.asc(),
        ))
        .select(CommentRow::as_select());
    window(
        &mut conn,
        Window::new(u64::from(limit), offset),
        query().count(),
        rows,
        CommentItem::try_from,
    )
    .await
}

pub(super) async fn files(pool: &PgPool, id: Uuid) -> Result<Vec<FileItem>, RepoError> {
    let mut conn = conn(pool).await?;
    let latest: Option<Uuid> = review_rounds::table
        .filter(review_rounds::review_id.eq(id))
        .order(review_rounds::round_number.desc())
        .select(review_rounds::id)
        .first(&mut conn)
        .await
        .optional()
        .map_err(map_diesel_error)?;
    let Some(round) = latest else {
        return Ok(Vec::new());
    };
    let rows: Vec<FileRow> = review_files::table
        .inner_join(review_rounds::table)
        .filter(review_files::round_id.eq(round))
        .order(review_files::file_path.asc())
        .select(FileRow::as_select())
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
    rows.into_iter().map(FileItem::try_from).collect()
}

pub(super) async fn rounds(pool: &PgPool, id: Uuid) -> Result<Vec<RoundItem>, RepoError> {
    let mut conn = conn(pool).await?;
    let rows: Vec<RoundRow> = review_rounds::table
        .filter(review_rounds::review_id.eq(id))
        .order(review_rounds::round_number.asc())
        .select(RoundRow::as_select())
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
    Ok(rows.into_iter().map(Into::into).collect())
}

pub(super) async fn feedbacks(pool: &PgPool, id: Uuid) -> Result<Vec<FeedbackItem>, RepoError> {
    let mut conn = conn(pool).await?;
    let rows: Vec<FeedbackRow> = review_feedbacks::table
        .filter(review_feedbacks::review_id.eq(id))
        .order(review_feedbacks::created_at.desc())
        .select(FeedbackRow::as_select())
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
    rows.into_iter().map(TryInto::try_into).collect()
}

pub(super) async fn ai_logs(
    pool: &PgPool,
    id: Uuid,
    provider: Option<&str>,
    status: Option<AiCallStatus>,
    limit: u32,
    offset: u64,
) -> Result<(Vec<AiLogItem>, u64), RepoError> {
    let mut conn = conn(pool).await?;
    let query = || {
        let mut q = ai_call_logs::table
            .filter(ai_call_logs::review_id.eq(id))
            .into_boxed::<Pg>();
        if let Some(p) = provider {
            q = q.filter(ai_call_logs::provider.eq(p.to_owned()));
        }
        if let Some(s) = status {
            q = q.filter(ai_call_logs::status.eq(s.as_str()));
        }
        q
    };
    let rows = query()
        .order((ai_call_logs::created_at.desc(), ai_call_logs::id.desc()))
        .select(AiLogRow::as_select());
    window(
        &mut conn,
        Window::new(u64::from(limit), offset),
        query().count(),
        rows,
        AiLogItem::try_from,
    )
    .await
}

pub(super) async fn task_logs(pool: &PgPool, id: Uuid) -> Result<Vec<TaskLogLine>, RepoError> {
    let mut conn = conn(pool).await?;
    let rows: Vec<TaskLogRow> = review_task_logs::table
        .inner_join(review_tasks::table)
        .filter(review_tasks::review_id.eq(id))
        .order((
            review_task_logs::created_at.asc(),
            review_task_logs::line_no.asc(),
        ))
        .select(TaskLogRow::as_select())
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
    Ok(rows.into_iter().map(Into::into).collect())
}
