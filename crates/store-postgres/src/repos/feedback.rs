//! Feedback records on posted comments, one per origin (comment, source, source
//! id, user), and the sums the review detail and project stats show.

use super::conn;
use crate::PgPool;
use crate::error::map_diesel_error;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::QueryableByName;
use diesel::sql_types::{
    Array, BigInt, Bool, Integer, Nullable, Text, Timestamptz, Uuid as SqlUuid,
};
use diesel_async::{AsyncConnection, RunQueryDsl};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::ReviewId;
use reviewd_domain::model::review_views::FeedbackItem;
use reviewd_domain::ports::{
    AcceptanceCounts, FeedbackRepository, FeedbackScope, FeedbackSource, FeedbackTarget,
    NewFeedback, RejectedFinding, RepoError,
};
use reviewd_domain::review::feedback::CONCESSION_NOTE;
use uuid::Uuid;

pub struct PgFeedbackRepository {
    pool: PgPool,
}

impl PgFeedbackRepository {
    #[must_use]
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

#[derive(QueryableByName)]
struct TargetRow {
    #[diesel(sql_type = SqlUuid)]
    comment_id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    review_id: Uuid,
    #[diesel(sql_type = Text)]
    file_path: String,
    #[diesel(sql_type = Integer)]
    line_number: i32,
}

#[derive(QueryableByName)]
struct RecordRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Nullable<Text>)]
    username: Option<String>,
    #[diesel(sql_type = Timestamptz)]
    created_at: DateTime<Utc>,
}

impl From<TargetRow> for FeedbackTarget {
    fn from(r: TargetRow) -> Self {
        FeedbackTarget {
            comment_id: r.comment_id,
            review_id: r.review_id.into(),
            file_path: r.file_path,
            line_number: r.line_number,
        }
    }
}

#[derive(QueryableByName)]
struct HeadTargetRow {
    #[diesel(sql_type = Text)]
    head_sha: String,
    #[diesel(embed)]
    target: TargetRow,
}

#[derive(QueryableByName)]
struct CountRow {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[derive(QueryableByName)]
struct MrRow {
    #[diesel(sql_type = SqlUuid)]
    project_id: Uuid,
    #[diesel(sql_type = BigInt)]
    mr_iid: i64,
}

/// Records `f`, or updates the record of the same origin; `None` for an unknown
/// comment (the comment gives the review, so nothing is inserted).
async fn upsert(
    conn: &mut diesel_async::AsyncPgConnection,
    f: NewFeedback,
) -> Result<Option<FeedbackItem>, diesel::result::Error> {
    let rows: Vec<RecordRow> = diesel::sql_query(
        "INSERT INTO review_feedbacks
             (review_id, comment_id, feedback_type, tracking_status, username, note, source, source_id)
         SELECT c.review_id, c.id, $2, $3, $4, $5, $6, $7 FROM review_comments c WHERE c.id = $1
         ON CONFLICT (comment_id, source, source_id, coalesce(username, ''))
         DO UPDATE SET feedback_type = excluded.feedback_type,
                       tracking_status = excluded.tracking_status,
                       note = excluded.note
         RETURNING id, username, created_at",
    )
    .bind::<SqlUuid, _>(f.comment_id)
    .bind::<Text, _>(f.verdict.feedback_type.as_str())
    .bind::<Text, _>(f.verdict.status.as_str())
    .bind::<Nullable<Text>, _>(f.username)
    .bind::<Nullable<Text>, _>(f.note)
    .bind::<Text, _>(f.source.as_str())
    .bind::<Text, _>(f.source_id)
    .load(conn)
    .await?;
    // The stored verdict is the one written: an upsert sets both on a conflict too.
    let (feedback_type, tracking_status) = (f.verdict.feedback_type, f.verdict.status);
    Ok(rows.into_iter().next().map(|row| FeedbackItem {
        id: row.id,
        feedback_type,
        tracking_status,
        username: row.username,
        created_at: row.created_at,
    }))
}

#[derive(QueryableByName)]
struct RejectedRow {
    #[diesel(sql_type = Text)]
    fingerprint: String,
    #[diesel(sql_type = Text)]
    file_path: String,
    #[diesel(sql_type = Text)]
    message: String,
    #[diesel(sql_type = BigInt)]
    rejections: i64,
    #[diesel(sql_type = Bool)]
    conceded: bool,
}

#[derive(QueryableByName)]
struct CountsRow {
    #[diesel(sql_type = BigInt)]
    judged: i64,
    #[diesel(sql_type = BigInt)]
    helped: i64,
}

#[async_trait]
impl FeedbackRepository for PgFeedbackRepository {
    async fn find_posted_comment(
        &self,
        project_id: ProjectId,
        mr_iid: i64,
        fingerprint: &str,
    ) -> Result<Option<FeedbackTarget>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let rows: Vec<TargetRow> = diesel::sql_query(
            "SELECT c.id AS comment_id, c.review_id, c.file_path, c.line_number
             FROM reviews r JOIN review_comments c ON c.review_id = r.id
             WHERE r.project_id = $1 AND r.mr_iid = $2 AND c.fingerprint = $3
               AND c.posted_at IS NOT NULL
             ORDER BY c.created_at DESC, c.id LIMIT 1",
        )
        .bind::<SqlUuid, _>(project_id.0)
        .bind::<BigInt, _>(mr_iid)
        .bind::<Text, _>(fingerprint)
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(rows.into_iter().next().map(FeedbackTarget::from))
    }

    async fn record(&self, f: NewFeedback) -> Result<FeedbackItem, RepoError> {
        let mut conn = conn(&self.pool).await?;
        upsert(&mut conn, f)
            .await
            .map_err(map_diesel_error)?
            .ok_or(RepoError::NotFound)
    }

    async fn sync_comment(
        &self,
        comment_id: Uuid,
        sources: &[FeedbackSource],
        records: Vec<NewFeedback>,
    ) -> Result<u64, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let sources: Vec<&'static str> = sources.iter().map(|s| s.as_str()).collect();
        let kept_sources: Vec<&'static str> = records.iter().map(|r| r.source.as_str()).collect();
        let kept_ids: Vec<String> = records.iter().map(|r| r.source_id.clone()).collect();
        let kept_users: Vec<String> = records
            .iter()
            .map(|r| r.username.clone().unwrap_or_default())
            .collect();
        let withdrawn = conn
            .transaction::<_, diesel::result::Error, _>(async move |conn| {
                let known: Vec<CountRow> =
                    diesel::sql_query("SELECT count(*) AS n FROM review_comments WHERE id = $1")
                        .bind::<SqlUuid, _>(comment_id)
                        .load(conn)
                        .await?;
                if known.iter().all(|r| r.n == 0) {
                    return Err(diesel::result::Error::NotFound);
                }
                let withdrawn = diesel::sql_query(
                    "DELETE FROM review_feedbacks f
                     WHERE f.comment_id = $1 AND f.source = ANY($2)
                       AND NOT EXISTS (
                           SELECT 1 FROM unnest($3::text[], $4::text[], $5::text[]) AS k(source, source_id, username)
                           WHERE k.source = f.source AND k.source_id = f.source_id
                             AND k.username = coalesce(f.username, ''))",
                )
                .bind::<SqlUuid, _>(comment_id)
                .bind::<Array<Text>, _>(sources)
                .bind::<Array<Text>, _>(kept_sources)
                .bind::<Array<Text>, _>(kept_ids)
                .bind::<Array<Text>, _>(kept_users)
                .execute(conn)
                .await?;
                for record in records {
                    upsert(conn, record).await?;
                }
                Ok(withdrawn)
            })
            .await
            .map_err(map_diesel_error)?;
        Ok(u64::try_from(withdrawn).unwrap_or(0))
    }

    async fn awaiting_fix(
        &self,
        review_id: ReviewId,
    ) -> Result<Vec<(String, FeedbackTarget)>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let rows: Vec<HeadTargetRow> = diesel::sql_query(
            "SELECT o.head_sha, c.id AS comment_id, c.review_id, c.file_path, c.line_number
             FROM review_rounds o JOIN review_comments c ON c.round_id = o.id
             WHERE o.review_id = $1 AND c.posted_at IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM review_feedbacks f
                               WHERE f.comment_id = c.id AND f.source = 'implemented')
             ORDER BY c.created_at, c.id",
        )
        .bind::<SqlUuid, _>(review_id.0)
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(rows
            .into_iter()
            .map(|r| (r.head_sha, FeedbackTarget::from(r.target)))
            .collect())
    }

    async fn commented_since(
        &self,
        since: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<(ProjectId, i64)>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        // A review is updated when its round finishes, after its comments were
        // posted: `reviews_updated_at_idx` narrows the scan to the last days.
        let rows: Vec<MrRow> = diesel::sql_query(
            "SELECT r.project_id, r.mr_iid, max(c.posted_at) AS last_posted
             FROM reviews r JOIN review_comments c ON c.review_id = r.id
             WHERE r.updated_at >= $1 AND c.posted_at >= $1
             GROUP BY r.project_id, r.mr_iid
             ORDER BY last_posted DESC LIMIT $2",
        )
        .bind::<Timestamptz, _>(since)
        .bind::<BigInt, _>(i64::from(limit))
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(rows
            .into_iter()
            .map(|r| (r.project_id.into(), r.mr_iid))
            .collect())
    }

    async fn withdraw(
        &self,
        comment_id: Uuid,
        source: FeedbackSource,
        source_id: &str,
        username: Option<&str>,
    ) -> Result<bool, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let deleted = diesel::sql_query(
            "DELETE FROM review_feedbacks
             WHERE comment_id = $1 AND source = $2 AND source_id = $3
               AND coalesce(username, '') = coalesce($4, '')",
        )
        .bind::<SqlUuid, _>(comment_id)
        .bind::<Text, _>(source.as_str())
        .bind::<Text, _>(source_id)
        .bind::<Nullable<Text>, _>(username)
        .execute(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(deleted > 0)
    }

    async fn rejected_findings(
        &self,
        project_id: ProjectId,
        files: &[String],
    ) -> Result<Vec<RejectedFinding>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        // One rejection per comment and user, however many ways they said it.
        let rows: Vec<RejectedRow> = diesel::sql_query(
            "SELECT c.fingerprint, min(c.file_path) AS file_path, min(c.message) AS message,
                    count(DISTINCT (c.id, coalesce(f.username, ''))) AS rejections,
                    coalesce(bool_or(f.note = $2), false) AS conceded
             FROM reviews r
             JOIN review_comments c ON c.review_id = r.id
             JOIN review_feedbacks f ON f.comment_id = c.id
             WHERE r.project_id = $1 AND f.tracking_status = 'rejected'
               AND c.file_path = ANY($3)
             GROUP BY c.fingerprint",
        )
        .bind::<SqlUuid, _>(project_id.0)
        .bind::<Text, _>(CONCESSION_NOTE)
        .bind::<Array<Text>, _>(files)
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(rows
            .into_iter()
            .map(|r| RejectedFinding {
                fingerprint: r.fingerprint,
                file_path: r.file_path,
                message: r.message,
                rejections: u64::try_from(r.rejections).unwrap_or(0),
                conceded: r.conceded,
            })
            .collect())
    }

    async fn acceptance(&self, scope: FeedbackScope) -> Result<AcceptanceCounts, RepoError> {
        let mut conn = conn(&self.pool).await?;
        // `All` binds a nil id that the condition ignores, so one query serves all.
        let (condition, id) = match scope {
            FeedbackScope::Review(id) => ("f.review_id = $1", id.0),
            FeedbackScope::Project(id) => ("r.project_id = $1", id.0),
            FeedbackScope::All => ("$1 IS NOT NULL", Uuid::nil()),
        };
        let row: CountsRow = diesel::sql_query(format!(
            "WITH per_comment AS (
                 SELECT f.comment_id,
                        count(*) FILTER (WHERE f.tracking_status = 'accepted') AS accepted,
                        count(*) FILTER (WHERE f.tracking_status = 'rejected') AS rejected,
                        count(*) FILTER (WHERE f.tracking_status = 'implemented') AS implemented
                 FROM review_feedbacks f JOIN reviews r ON r.id = f.review_id
                 WHERE f.comment_id IS NOT NULL AND {condition}
                 GROUP BY f.comment_id)
             SELECT count(*) FILTER (WHERE accepted + rejected + implemented > 0) AS judged,
                    count(*) FILTER (WHERE implemented > 0 OR (accepted > 0 AND accepted >= rejected)) AS helped
             FROM per_comment"
        ))
        .bind::<SqlUuid, _>(id)
        .get_result(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(AcceptanceCounts {
            judged: u64::try_from(row.judged).unwrap_or(0),
            helped: u64::try_from(row.helped).unwrap_or(0),
        })
    }
}
