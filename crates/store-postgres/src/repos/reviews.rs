//! The review engine's writes and reads: reviews, rounds, files, comments and
//! model calls.

use super::{conn, found};
use crate::PgPool;
use crate::error::map_diesel_error;
use crate::rows::{FileRefRow, ReviewRow};
use crate::schema::{ai_call_logs, review_comments, review_files, review_rounds, reviews};
use async_trait::async_trait;
use chrono::Utc;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use reviewd_domain::context::ContextStats;
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::review::{
    AiCallRecord, FileProgress, FileStatus, NewReview, NewReviewFile, PlacedComment, Review,
    ReviewOutcome, ReviewStatus, RoundRef,
};
use reviewd_domain::model::{ReviewFileId, ReviewId};
use reviewd_domain::ports::{RepoError, ReviewRepository};
use reviewd_domain::review::gate::StandingFindings;
use std::collections::HashSet;
use uuid::Uuid;

pub struct PgReviewRepository {
    pool: PgPool,
}

impl PgReviewRepository {
    #[must_use]
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

fn clamp(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn clamp32(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

#[async_trait]
impl ReviewRepository for PgReviewRepository {
    async fn find_for_mr(
        &self,
        project_id: ProjectId,
        mr_iid: i64,
    ) -> Result<Option<Review>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let row: Option<ReviewRow> = reviews::table
            .filter(reviews::project_id.eq(project_id.0))
            .filter(reviews::mr_iid.eq(mr_iid))
            .order(reviews::created_at.desc())
            .select(ReviewRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        row.map(Review::try_from).transpose()
    }

    async fn get(&self, id: ReviewId) -> Result<Review, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let row: ReviewRow = reviews::table
            .find(id.0)
            .select(ReviewRow::as_select())
            .first(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        row.try_into()
    }

    async fn file_ref(
        &self,
        review_id: ReviewId,
        file_id: ReviewFileId,
    ) -> Result<(String, Option<String>, RoundRef), RepoError> {
        let mut conn = conn(&self.pool).await?;
        let row: FileRefRow = review_files::table
            .inner_join(review_rounds::table)
            .filter(review_files::id.eq(file_id.0))
            .filter(review_files::review_id.eq(review_id.0))
            .select(FileRefRow::as_select())
            .first(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(row.into_parts())
    }

    async fn add_comment_count(&self, review_id: ReviewId, delta: i32) -> Result<(), RepoError> {
        let mut conn = conn(&self.pool).await?;
        diesel::update(reviews::table.find(review_id.0))
            .set(reviews::comment_count.eq(reviews::comment_count + delta))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(())
    }

    async fn last_completed_round(
        &self,
        review_id: ReviewId,
    ) -> Result<Option<(i32, String)>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        review_rounds::table
            .filter(review_rounds::review_id.eq(review_id.0))
            .filter(review_rounds::completed_at.is_not_null())
            .order(review_rounds::round_number.desc())
            .select((review_rounds::round_number, review_rounds::head_sha))
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)
    }

    async fn create(&self, r: NewReview) -> Result<Review, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let row: ReviewRow = diesel::insert_into(reviews::table)
            .values((
                reviews::project_id.eq(r.project_id.0),
                reviews::project_name.eq(r.project_name),
                reviews::mr_iid.eq(r.mr_iid),
                reviews::mr_title.eq(r.mr_title),
                reviews::mr_url.eq(r.mr_url),
                reviews::source_branch.eq(r.source_branch),
                reviews::target_branch.eq(r.target_branch),
                reviews::author_username.eq(r.author_username),
                reviews::ai_provider.eq(r.ai_provider),
                reviews::ai_model.eq(r.ai_model),
                reviews::triggered_by.eq(r.triggered_by.as_str()),
                reviews::base_commit_sha.eq(r.base_commit_sha),
                reviews::head_commit_sha.eq(r.head_commit_sha),
                reviews::start_commit_sha.eq(r.start_commit_sha),
                reviews::round_number.eq(1),
                reviews::started_at.eq(Utc::now()),
            ))
            .returning(ReviewRow::as_returning())
            .get_result(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        row.try_into()
    }

    async fn start_round(
        &self,
        review_id: ReviewId,
        number: i32,
        differential: bool,
        base_sha: Option<&str>,
        head_sha: &str,
    ) -> Result<RoundRef, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let (base, head) = (base_sha.map(str::to_owned), head_sha.to_owned());
        conn.transaction(async move |conn| {
            // A retried attempt redoes its round: what the failed attempt stored goes.
            diesel::delete(
                review_rounds::table
                    .filter(review_rounds::review_id.eq(review_id.0))
                    .filter(review_rounds::round_number.eq(number)),
            )
            .execute(conn)
            .await?;
            diesel::update(reviews::table.find(review_id.0))
                .set((
                    reviews::status.eq("pending"),
                    reviews::error_message.eq(None::<String>),
                    reviews::started_at.eq(Utc::now()),
                ))
                .execute(conn)
                .await?;
            let id: Uuid = diesel::insert_into(review_rounds::table)
                .values((
                    review_rounds::review_id.eq(review_id.0),
                    review_rounds::round_number.eq(number),
                    review_rounds::is_differential.eq(differential),
                    review_rounds::base_sha.eq(base),
                    review_rounds::head_sha.eq(head),
                ))
                .returning(review_rounds::id)
                .get_result(conn)
                .await?;
            Ok::<_, diesel::result::Error>(RoundRef { id, number })
        })
        .await
        .map_err(map_diesel_error)
    }

    async fn add_file(
        &self,
        review_id: ReviewId,
        round: RoundRef,
        f: NewReviewFile,
    ) -> Result<ReviewFileId, RepoError> {
        let mut conn = conn(&self.pool).await?;
        diesel::insert_into(review_files::table)
            .values((
                review_files::review_id.eq(review_id.0),
                review_files::round_id.eq(round.id),
                review_files::file_path.eq(f.file_path),
                review_files::old_path.eq(f.old_path),
                review_files::change_type.eq(f.change_type.as_str()),
                review_files::status.eq(f.status.as_str()),
            ))
            .returning(review_files::id)
            .get_result(&mut conn)
            .await
            .map(ReviewFileId)
            .map_err(map_diesel_error)
    }

    async fn update_file(&self, file_id: ReviewFileId, p: FileProgress) -> Result<(), RepoError> {
        let mut conn = conn(&self.pool).await?;
        let now = Utc::now();
        let finished = p.status.finished();
        let n = diesel::update(review_files::table.find(file_id.0))
            .set((
                review_files::status.eq(p.status.as_str()),
                review_files::summary.eq(p.summary),
                review_files::comment_count.eq(p.comment_count),
                review_files::prompt_summary.eq(p.prompt_summary),
                review_files::error_message.eq(p.error_message),
                review_files::completed_at.eq(finished.then_some(now)),
            ))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        if let Some(context) = p.context {
            let value = serde_json::to_value(context).map_err(|e| RepoError::Other(Box::new(e)))?;
            diesel::update(review_files::table.find(file_id.0))
                .set(review_files::context.eq(value))
                .execute(&mut conn)
                .await
                .map_err(map_diesel_error)?;
        }
        if p.status == FileStatus::Processing {
            diesel::update(review_files::table.find(file_id.0))
                .set((
                    review_files::started_at.eq(now),
                    review_files::attempts.eq(review_files::attempts + 1),
                ))
                .execute(&mut conn)
                .await
                .map_err(map_diesel_error)?;
        }
        found(n)
    }

    async fn record_round_context(
        &self,
        round_id: Uuid,
        stats: &ContextStats,
    ) -> Result<(), RepoError> {
        let value = serde_json::to_value(stats).map_err(|e| RepoError::Other(Box::new(e)))?;
        let mut conn = conn(&self.pool).await?;
        let n = diesel::update(review_rounds::table.find(round_id))
            .set(review_rounds::context.eq(value))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        found(n)
    }

    async fn fingerprints(&self, review_id: ReviewId) -> Result<HashSet<String>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        // What was said: posted, or kept by a completed round (reviews not sent to the
        // platform). Comments of an unfinished attempt do not count: its redo says them.
        let all: Vec<String> = review_comments::table
            .inner_join(review_rounds::table)
            .filter(review_comments::review_id.eq(review_id.0))
            .filter(
                review_comments::posted_at
                    .is_not_null()
                    .or(review_rounds::completed_at.is_not_null()),
            )
            .select(review_comments::fingerprint)
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(all.into_iter().collect())
    }

    async fn add_comments(
        &self,
        review_id: ReviewId,
        round: RoundRef,
        comments: &[PlacedComment],
    ) -> Result<Vec<Uuid>, RepoError> {
        if comments.is_empty() {
            return Ok(Vec::new());
        }
        let mut conn = conn(&self.pool).await?;
        let rows: Vec<_> = comments
            .iter()
            .map(|c| {
                (
                    review_comments::review_id.eq(review_id.0),
                    review_comments::round_id.eq(round.id),
                    review_comments::file_id.eq(Some(c.file_id.0)),
                    review_comments::file_path.eq(c.file_path.clone()),
                    review_comments::line_number.eq(i32::try_from(c.line).unwrap_or(i32::MAX)),
                    review_comments::severity.eq(c.severity.as_str()),
                    review_comments::message.eq(c.message.clone()),
                    review_comments::fingerprint.eq(c.fingerprint.clone()),
                    review_comments::suggestion_start_line
                        .eq(c.suggestion.as_ref().map(|s| clamp32(s.start_line))),
                    review_comments::suggestion_end_line
                        .eq(c.suggestion.as_ref().map(|s| clamp32(s.end_line))),
                    review_comments::suggestion_code
                        .eq(c.suggestion.as_ref().map(|s| s.code.clone())),
                )
            })
            .collect();
        // Postgres returns inserted rows in VALUES order.
        diesel::insert_into(review_comments::table)
            .values(rows)
            .returning(review_comments::id)
            .get_results(&mut conn)
            .await
            .map_err(map_diesel_error)
    }

    async fn mark_posted(
        &self,
        comment_id: Uuid,
        discussion_id: Option<&str>,
    ) -> Result<(), RepoError> {
        let mut conn = conn(&self.pool).await?;
        diesel::update(review_comments::table.find(comment_id))
            .set((
                review_comments::host_a_discussion_id.eq(discussion_id),
                review_comments::posted_at.eq(Utc::now()),
            ))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(())
    }

    async fn finish(
        &self,
        review_id: ReviewId,
        round: RoundRef,
        head_sha: &str,
        o: ReviewOutcome,
    ) -> Result<(), RepoError> {
        let mut conn = conn(&self.pool).await?;
        let now = Utc::now();
        let head = head_sha.to_owned();
        conn.transaction(async move |conn| {
            let round_comments: i64 = review_comments::table
                .filter(review_comments::round_id.eq(round.id))
                .count()
                .get_result(conn)
                .await?;
            let round_files: i64 = review_files::table
                .filter(review_files::round_id.eq(round.id))
                .count()
                .get_result(conn)
                .await?;
            // Only a completed review completes its round: a failed round is redone.
            let completed_at = (o.status == ReviewStatus::Completed).then_some(now);
            diesel::update(review_rounds::table.find(round.id))
                .set((
                    review_rounds::completed_at.eq(completed_at),
                    review_rounds::comment_count
                        .eq(i32::try_from(round_comments).unwrap_or(i32::MAX)),
                    review_rounds::file_count.eq(i32::try_from(round_files).unwrap_or(i32::MAX)),
                ))
                .execute(conn)
                .await?;
            let n = diesel::update(reviews::table.find(review_id.0))
                .set((
                    reviews::status.eq(o.status.as_str()),
                    reviews::overall_rating.eq(o.rating.map(|r| r.to_string())),
                    reviews::score.eq(o.score.map(clamp32_u)),
                    reviews::summary.eq(o.summary),
                    reviews::comment_count.eq(o.comment_count),
                    reviews::reviewed_lines.eq(o.reviewed_lines),
                    reviews::summary_comment_id.eq(o.summary_comment_id),
                    reviews::error_message.eq(o.error_message),
                    reviews::head_commit_sha.eq(head),
                    reviews::applied_rule_ids.eq(o.applied_rule_ids),
                    reviews::round_number.eq(round.number),
                    reviews::completed_at.eq(now),
                ))
                .execute(conn)
                .await?;
            if n == 0 {
                return Err(diesel::result::Error::NotFound);
            }
            Ok(())
        })
        .await
        .map_err(map_diesel_error)
    }

    async fn standing_findings(&self, review_id: ReviewId) -> Result<StandingFindings, RepoError> {
        let mut conn = conn(&self.pool).await?;
        super::standing::standing_findings(&mut conn, review_id.0)
            .await
            .map_err(map_diesel_error)
    }

    async fn log_ai_call(&self, call: AiCallRecord) -> Result<(), RepoError> {
        let mut conn = conn(&self.pool).await?;
        diesel::insert_into(ai_call_logs::table)
            .values((
                ai_call_logs::review_id.eq(call.review_id.map(Uuid::from)),
                ai_call_logs::file_path.eq(call.file_path),
                ai_call_logs::provider.eq(call.provider),
                ai_call_logs::model.eq(call.model),
                ai_call_logs::status.eq(if call.success { "success" } else { "failed" }),
                ai_call_logs::duration_ms.eq(clamp(call.duration_ms)),
                ai_call_logs::prompt_tokens.eq(clamp32(call.prompt_tokens)),
                ai_call_logs::completion_tokens.eq(clamp32(call.completion_tokens)),
                ai_call_logs::total_tokens.eq(clamp32(call.total_tokens)),
                ai_call_logs::cached_tokens.eq(clamp32(call.cached_tokens)),
                ai_call_logs::cost_usd.eq(call.cost_usd),
                ai_call_logs::error_message.eq(call.error_message),
            ))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(())
    }
}

fn clamp32_u(n: u32) -> i32 {
    clamp32(n)
}
