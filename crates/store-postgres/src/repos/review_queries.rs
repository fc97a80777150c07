use super::{bounds, conn, contains_pattern, count};
use crate::PgPool;
use crate::error::map_diesel_error;
use crate::schema::{
    ai_call_logs, review_comments, review_feedbacks, review_files, review_rounds, review_rules,
    review_task_logs, review_tasks, review_templates, reviews,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::dsl::sql;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Double, Nullable};
use diesel_async::RunQueryDsl;
use reviewd_domain::model::review_views::{
    AiLogItem, CommentItem, DayCount, FailedReview, FeedbackItem, FileItem, ReviewActivity,
    ReviewDetail, ReviewFilter, ReviewListItem, ReviewStats, RoundItem, RuleItem, TaskLogLine,
    TemplateItem,
};
use reviewd_domain::ports::{RepoError, ReviewQueries};
use reviewd_domain::{Page, PageRequest};
use uuid::Uuid;

pub struct PgReviewQueries {
    pool: PgPool,
}

impl PgReviewQueries {
    #[must_use]
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

fn filtered(f: &ReviewFilter) -> reviews::BoxedQuery<'static, Pg> {
    let mut q = reviews::table.into_boxed();
    if let Some(p) = f.project_id {
        q = q.filter(reviews::project_id.eq(p));
    }
    if let Some(search) = f.project_search.as_deref().filter(|s| !s.is_empty()) {
        q = q.filter(reviews::project_name.ilike(contains_pattern(search.trim())));
    }
    if let Some(s) = &f.status {
        q = q.filter(reviews::status.eq(s.clone()));
    }
    if let Some(t) = &f.triggered_by {
        q = q.filter(reviews::triggered_by.eq(t.clone()));
    }
    if let Some(start) = f.start_date {
        q = q.filter(reviews::created_at.ge(start));
    }
    if let Some(end) = f.end_date {
        q = q.filter(reviews::created_at.le(end));
    }
    q
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = reviews, check_for_backend(diesel::pg::Pg))]
struct ListRow {
    id: Uuid,
    project_id: Uuid,
    project_name: String,
    mr_iid: i64,
    mr_title: String,
    mr_url: String,
    status: String,
    ai_provider: String,
    ai_model: String,
    comment_count: i32,
    triggered_by: String,
    overall_rating: Option<String>,
    summary: Option<String>,
    created_at: DateTime<Utc>,
    completed_at: Option<DateTime<Utc>>,
}

impl From<ListRow> for ReviewListItem {
    fn from(r: ListRow) -> Self {
        ReviewListItem {
            id: r.id,
            project_id: r.project_id,
            project_name: r.project_name,
            mr_iid: r.mr_iid,
            mr_title: r.mr_title,
            mr_url: r.mr_url,
            status: r.status,
            ai_provider: r.ai_provider,
            ai_model: r.ai_model,
            comment_count: r.comment_count,
            triggered_by: r.triggered_by,
            overall_rating: r.overall_rating,
            summary: r.summary,
            created_at: r.created_at,
            completed_at: r.completed_at,
        }
    }
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = reviews, check_for_backend(diesel::pg::Pg))]
struct DetailExtra {
    base_commit_sha: Option<String>,
    head_commit_sha: String,
    start_commit_sha: Option<String>,
    round_number: i32,
    applied_rule_ids: Vec<String>,
    reviewed_lines: i32,
    score: Option<i32>,
    source_branch: String,
    target_branch: String,
    author_username: Option<String>,
    error_message: Option<String>,
    started_at: Option<DateTime<Utc>>,
}

#[async_trait]
impl ReviewQueries for PgReviewQueries {
    async fn list(
        &self,
        f: &ReviewFilter,
        page: PageRequest,
    ) -> Result<(Page<ReviewListItem>, ReviewStats), RepoError> {
        let mut conn = conn(&self.pool).await?;
        let (limit, offset) = bounds(page);
        let (total, pending, completed, failed, comments, average): (
            i64,
            i64,
            i64,
            i64,
            i64,
            Option<f64>,
        ) = filtered(f)
            .select((
                sql::<BigInt>("count(*)"),
                sql::<BigInt>("count(*) FILTER (WHERE status = 'pending')"),
                sql::<BigInt>("count(*) FILTER (WHERE status = 'completed')"),
                sql::<BigInt>("count(*) FILTER (WHERE status = 'failed')"),
                sql::<BigInt>("coalesce(sum(comment_count), 0)::bigint"),
                sql::<Nullable<Double>>("avg(score)::double precision"),
            ))
            .get_result(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let rows: Vec<ListRow> = filtered(f)
            .select(ListRow::as_select())
            .order((reviews::created_at.desc(), reviews::id.desc()))
            .limit(limit)
            .offset(offset)
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let stats = ReviewStats {
            total: count(total),
            pending: count(pending),
            completed: count(completed),
            failed: count(failed),
            total_comments: count(comments),
            average_score: average.map(|a| (a * 10.0).round() / 10.0),
        };
        Ok((
            Page {
                items: rows.into_iter().map(Into::into).collect(),
                total: count(total),
                request: page,
            },
            stats,
        ))
    }

    async fn activity(
        &self,
        since: DateTime<Utc>,
        failures: u32,
    ) -> Result<ReviewActivity, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let since_created = reviews::created_at.ge(since);
        let days: Vec<(chrono::NaiveDate, i64, i64, i64)> = reviews::table
            .filter(since_created)
            .select((
                sql::<diesel::sql_types::Date>("(created_at AT TIME ZONE 'UTC')::date"),
                sql::<BigInt>("count(*)"),
                sql::<BigInt>("count(*) FILTER (WHERE status = 'completed')"),
                sql::<BigInt>("count(*) FILTER (WHERE status = 'failed')"),
            ))
            .group_by(sql::<diesel::sql_types::Date>("1"))
            .order(sql::<diesel::sql_types::Date>("1"))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let ratings: Vec<(Option<String>, i64)> = reviews::table
            .filter(reviews::created_at.ge(since))
            .filter(reviews::status.eq("completed"))
            .group_by(reviews::overall_rating)
            .select((reviews::overall_rating, sql::<BigInt>("count(*)")))
            .order(reviews::overall_rating.asc())
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let failed: Vec<(Uuid, String, i64, String, Option<String>, DateTime<Utc>)> =
            reviews::table
                .filter(reviews::status.eq("failed"))
                .select((
                    reviews::id,
                    reviews::project_name,
                    reviews::mr_iid,
                    reviews::mr_title,
                    reviews::error_message,
                    reviews::created_at,
                ))
                .order(reviews::created_at.desc())
                .limit(i64::from(failures))
                .load(&mut conn)
                .await
                .map_err(map_diesel_error)?;
        Ok(ReviewActivity {
            days: days
                .into_iter()
                .map(|(day, total, completed, failed)| DayCount {
                    day,
                    total: count(total),
                    completed: count(completed),
                    failed: count(failed),
                })
                .collect(),
            ratings: ratings
                .into_iter()
                .filter_map(|(rating, n)| rating.map(|r| (r, count(n))))
                .collect(),
            recent_failures: failed
                .into_iter()
                .map(
                    |(id, project_name, mr_iid, mr_title, error_message, created_at)| {
                        FailedReview {
                            id,
                            project_name,
                            mr_iid,
                            mr_title,
                            error_message,
                            created_at,
                        }
                    },
                )
                .collect(),
        })
    }

    async fn detail(&self, id: Uuid) -> Result<ReviewDetail, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let (item, extra): (ListRow, DetailExtra) = reviews::table
            .find(id)
            .select((ListRow::as_select(), DetailExtra::as_select()))
            .first(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(ReviewDetail {
            item: item.into(),
            base_commit_sha: extra.base_commit_sha,
            head_commit_sha: extra.head_commit_sha,
            start_commit_sha: extra.start_commit_sha,
            round_number: extra.round_number,
            applied_rule_ids: extra.applied_rule_ids,
            reviewed_lines: extra.reviewed_lines,
            score: extra.score,
            source_branch: extra.source_branch,
            target_branch: extra.target_branch,
            author_username: extra.author_username,
            error_message: extra.error_message,
            started_at: extra.started_at,
        })
    }

    async fn comments(
        &self,
        id: Uuid,
        file_path: Option<&str>,
        severity: Option<&str>,
        limit: u32,
        offset: u64,
    ) -> Result<(Vec<CommentItem>, u64), RepoError> {
        let mut conn = conn(&self.pool).await?;
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
        let total: i64 = query()
            .count()
            .get_result(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        #[allow(clippy::type_complexity)]
        let rows: Vec<(
            Uuid,
            Uuid,
            String,
            i32,
            String,
            String,
            Option<String>,
            i32,
            Option<DateTime<Utc>>,
            DateTime<Utc>,
        )> = query()
            .order((
                review_comments::file_path.asc(),
                review_comments::line_number.asc(),
                review_comments::created_at.asc(),
            ))
            .limit(i64::from(limit))
            .offset(i64::try_from(offset).unwrap_or(i64::MAX))
            .select((
                review_comments::id,
                review_comments::review_id,
                review_comments::file_path,
                review_comments::line_number,
                review_comments::severity,
                review_comments::message,
                review_comments::host_a_discussion_id,
                review_rounds::round_number,
                review_comments::posted_at,
                review_comments::created_at,
            ))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let items = rows
            .into_iter()
            .map(|r| CommentItem {
                id: r.0,
                review_id: r.1,
                file_path: r.2,
                line_number: r.3,
                severity: r.4,
                message: r.5,
                host_a_discussion_id: r.6,
                round_number: r.7,
                posted_at: r.8,
                created_at: r.9,
            })
            .collect();
        Ok((items, count(total)))
    }

    async fn files(&self, id: Uuid) -> Result<Vec<FileItem>, RepoError> {
        let mut conn = conn(&self.pool).await?;
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
        #[allow(clippy::type_complexity)]
        let rows: Vec<(
            Uuid,
            String,
            Option<String>,
            String,
            Option<String>,
            i32,
            String,
            Option<String>,
            Option<String>,
            i32,
            i32,
            Option<DateTime<Utc>>,
            Option<DateTime<Utc>>,
        )> = review_files::table
            .inner_join(review_rounds::table)
            .filter(review_files::round_id.eq(round))
            .order(review_files::file_path.asc())
            .select((
                review_files::id,
                review_files::file_path,
                review_files::old_path,
                review_files::change_type,
                review_files::summary,
                review_files::comment_count,
                review_files::status,
                review_files::prompt_summary,
                review_files::error_message,
                review_files::attempts,
                review_rounds::round_number,
                review_files::started_at,
                review_files::completed_at,
            ))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(rows
            .into_iter()
            .map(|r| FileItem {
                id: r.0,
                file_path: r.1,
                old_path: r.2,
                change_type: r.3,
                summary: r.4,
                comment_count: r.5,
                status: r.6,
                prompt_summary: r.7,
                error_message: r.8,
                attempts: r.9,
                round_number: r.10,
                started_at: r.11,
                completed_at: r.12,
            })
            .collect())
    }

    async fn rounds(&self, id: Uuid) -> Result<Vec<RoundItem>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        #[allow(clippy::type_complexity)]
        let rows: Vec<(
            Uuid,
            i32,
            bool,
            Option<String>,
            String,
            i32,
            i32,
            DateTime<Utc>,
            Option<DateTime<Utc>>,
        )> = review_rounds::table
            .filter(review_rounds::review_id.eq(id))
            .order(review_rounds::round_number.asc())
            .select((
                review_rounds::id,
                review_rounds::round_number,
                review_rounds::is_differential,
                review_rounds::base_sha,
                review_rounds::head_sha,
                review_rounds::file_count,
                review_rounds::comment_count,
                review_rounds::created_at,
                review_rounds::completed_at,
            ))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(rows
            .into_iter()
            .map(|r| RoundItem {
                id: r.0,
                round_number: r.1,
                is_differential: r.2,
                base_sha: r.3,
                head_sha: r.4,
                file_count: r.5,
                comment_count: r.6,
                created_at: r.7,
                completed_at: r.8,
            })
            .collect())
    }

    async fn feedbacks(&self, id: Uuid) -> Result<Vec<FeedbackItem>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let rows: Vec<(Uuid, String, String, Option<String>, DateTime<Utc>)> =
            review_feedbacks::table
                .filter(review_feedbacks::review_id.eq(id))
                .order(review_feedbacks::created_at.desc())
                .select((
                    review_feedbacks::id,
                    review_feedbacks::feedback_type,
                    review_feedbacks::tracking_status,
                    review_feedbacks::username,
                    review_feedbacks::created_at,
                ))
                .load(&mut conn)
                .await
                .map_err(map_diesel_error)?;
        Ok(rows
            .into_iter()
            .map(|r| FeedbackItem {
                id: r.0,
                feedback_type: r.1,
                tracking_status: r.2,
                username: r.3,
                created_at: r.4,
            })
            .collect())
    }

    async fn ai_logs(
        &self,
        id: Uuid,
        provider: Option<&str>,
        status: Option<&str>,
        limit: u32,
        offset: u64,
    ) -> Result<(Vec<AiLogItem>, u64), RepoError> {
        let mut conn = conn(&self.pool).await?;
        let query = || {
            let mut q = ai_call_logs::table
                .filter(ai_call_logs::review_id.eq(id))
                .into_boxed::<Pg>();
            if let Some(p) = provider {
                q = q.filter(ai_call_logs::provider.eq(p.to_owned()));
            }
            if let Some(s) = status {
                q = q.filter(ai_call_logs::status.eq(s.to_owned()));
            }
            q
        };
        let total: i64 = query()
            .count()
            .get_result(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        #[allow(clippy::type_complexity)]
        let rows: Vec<(
            Uuid,
            String,
            String,
            String,
            i64,
            i32,
            i32,
            i32,
            Option<String>,
            Option<String>,
            DateTime<Utc>,
        )> = query()
            .order((ai_call_logs::created_at.desc(), ai_call_logs::id.desc()))
            .limit(i64::from(limit))
            .offset(i64::try_from(offset).unwrap_or(i64::MAX))
            .select((
                ai_call_logs::id,
                ai_call_logs::provider,
                ai_call_logs::model,
                ai_call_logs::status,
                ai_call_logs::duration_ms,
                ai_call_logs::prompt_tokens,
                ai_call_logs::completion_tokens,
                ai_call_logs::total_tokens,
                ai_call_logs::file_path,
                ai_call_logs::error_message,
                ai_call_logs::created_at,
            ))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let items = rows
            .into_iter()
            .map(|r| AiLogItem {
                id: r.0,
                provider: r.1,
                model: r.2,
                status: r.3,
                duration_ms: r.4,
                prompt_tokens: r.5,
                completion_tokens: r.6,
                total_tokens: r.7,
                file_path: r.8,
                error_message: r.9,
                created_at: r.10,
            })
            .collect();
        Ok((items, count(total)))
    }

    async fn task_logs(&self, id: Uuid) -> Result<Vec<TaskLogLine>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let rows: Vec<(Uuid, i32, String, DateTime<Utc>)> = review_task_logs::table
            .inner_join(review_tasks::table)
            .filter(review_tasks::review_id.eq(id))
            .order((
                review_task_logs::created_at.asc(),
                review_task_logs::line_no.asc(),
            ))
            .select((
                review_task_logs::task_id,
                review_task_logs::line_no,
                review_task_logs::message,
                review_task_logs::created_at,
            ))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(rows
            .into_iter()
            .map(|r| TaskLogLine {
                task_id: r.0,
                line_no: r.1,
                message: r.2,
                created_at: r.3,
            })
            .collect())
    }

    async fn templates(&self) -> Result<Vec<TemplateItem>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let rows: Vec<(Uuid, String, Option<String>, bool, Option<Uuid>)> = review_templates::table
            .order((
                review_templates::is_default.desc(),
                review_templates::name.asc(),
            ))
            .select((
                review_templates::id,
                review_templates::name,
                review_templates::description,
                review_templates::is_default,
                review_templates::project_id,
            ))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(rows
            .into_iter()
            .map(|r| TemplateItem {
                id: r.0,
                name: r.1,
                description: r.2,
                is_default: r.3,
                project_id: r.4,
            })
            .collect())
    }

    async fn rules(&self) -> Result<Vec<RuleItem>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        #[allow(clippy::type_complexity)]
        let rows: Vec<(
            Uuid,
            String,
            bool,
            Vec<String>,
            Vec<String>,
            i32,
            Option<Uuid>,
        )> = review_rules::table
            .order((review_rules::priority.desc(), review_rules::rule_name.asc()))
            .select((
                review_rules::id,
                review_rules::rule_name,
                review_rules::enabled,
                review_rules::file_type_patterns,
                review_rules::file_path_patterns,
                review_rules::priority,
                review_rules::project_id,
            ))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(rows
            .into_iter()
            .map(|r| RuleItem {
                id: r.0,
                rule_name: r.1,
                enabled: r.2,
                file_type_patterns: r.3,
                file_path_patterns: r.4,
                priority: r.5,
                project_id: r.6,
            })
            .collect())
    }
}
