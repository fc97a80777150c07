//! The rounds with comments readers judged, for `reviewd export-eval`: each
//! comment with its latest verdict (accepted, implemented or rejected).

use crate::PgPool;
use crate::error::{corrupt, map_diesel_error};
use crate::repos::conn;
use crate::schema::{review_comments, review_feedbacks, review_rounds, reviews};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use reviewd_domain::model::review_views::{JudgedComment, JudgedRound};
use reviewd_domain::ports::RepoError;
use uuid::Uuid;

/// A judged comment's row: its round and review, itself, one verdict.
type Row = (
    Uuid,
    i32,
    String,
    Uuid,
    i64,
    String,
    Option<String>,
    Uuid,
    String,
    i32,
    String,
    String,
    String,
);

pub(super) async fn judged_rounds(
    pool: &PgPool,
    project_id: Uuid,
    limit: u32,
) -> Result<Vec<JudgedRound>, RepoError> {
    if limit == 0 {
        return Ok(Vec::new());
    }
    let mut conn = conn(pool).await?;
    // Newest round first; within a comment, its latest verdict first.
    let rows: Vec<(Row, DateTime<Utc>)> = review_feedbacks::table
        .inner_join(
            review_comments::table
                .on(review_feedbacks::comment_id.eq(review_comments::id.nullable())),
        )
        .inner_join(review_rounds::table.on(review_rounds::id.eq(review_comments::round_id)))
        .inner_join(reviews::table.on(reviews::id.eq(review_comments::review_id)))
        .filter(reviews::project_id.eq(project_id))
        .filter(review_feedbacks::tracking_status.eq_any(["accepted", "implemented", "rejected"]))
        .order((
            review_rounds::created_at.desc(),
            review_rounds::id,
            review_comments::file_path,
            review_comments::line_number,
            review_comments::id,
            review_feedbacks::updated_at.desc(),
        ))
        .select((
            (
                review_rounds::id,
                review_rounds::round_number,
                review_rounds::head_sha,
                reviews::id,
                reviews::mr_iid,
                reviews::mr_title,
                reviews::base_commit_sha,
                review_comments::id,
                review_comments::file_path,
                review_comments::line_number,
                review_comments::severity,
                review_comments::message,
                review_feedbacks::tracking_status,
            ),
            review_feedbacks::updated_at,
        ))
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
    let mut rounds: Vec<(Uuid, JudgedRound)> = Vec::new();
    let mut last_comment: Option<Uuid> = None;
    for (
        (
            round_id,
            number,
            head,
            review_id,
            iid,
            title,
            base,
            comment_id,
            path,
            line,
            severity,
            message,
            verdict,
        ),
        _,
    ) in rows
    {
        if last_comment == Some(comment_id) {
            continue; // an older verdict of the same comment
        }
        last_comment = Some(comment_id);
        if rounds.last().is_none_or(|(id, _)| *id != round_id) {
            if rounds.len() == limit as usize {
                break;
            }
            rounds.push((
                round_id,
                JudgedRound {
                    review_id: review_id.into(),
                    mr_iid: iid,
                    mr_title: title,
                    base_sha: base,
                    head_sha: head,
                    round_number: number,
                    comments: Vec::new(),
                },
            ));
        }
        if let Some((_, round)) = rounds.last_mut() {
            let corrupt_row = |e: String| corrupt(format!("review comment {comment_id}: {e}"));
            round.comments.push(JudgedComment {
                file_path: path,
                line,
                severity: severity.parse().map_err(corrupt_row)?,
                message,
                verdict: verdict.parse().map_err(corrupt_row)?,
            });
        }
    }
    Ok(rounds.into_iter().map(|(_, r)| r).collect())
}
