//! `ReviewQueries` in memory: the API's read side of reviews, over the rows the
//! review repository, the catalog and the runners write.

use super::MemoryStore;
use super::catalog::by_priority;
use super::tables::{AiCallRow, ReviewRow, review_cost};
use async_trait::async_trait;
use chrono::{DateTime, Days, NaiveDate, Utc};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::ReviewId;
use reviewd_domain::model::review::{AiCallStatus, ReviewStatus};
use reviewd_domain::model::review_views::{
    AiLogItem, COST_DAYS, CommentItem, DayCost, DayCount, FailedReview, FeedbackItem, FileItem,
    JudgedComment, JudgedRound, ReviewActivity, ReviewDetail, ReviewFilter, ReviewListItem,
    ReviewStats, RoundItem, RuleItem, TaskLogLine, TemplateItem,
};
use reviewd_domain::ports::{RepoError, ReviewQueries};
use reviewd_domain::review::feedback::TrackingStatus;
use reviewd_domain::{Page, PageRequest};
use std::collections::BTreeMap;

fn matches(f: &ReviewFilter, r: &ReviewListItem) -> bool {
    let search = f.project_search.as_deref().filter(|s| !s.is_empty());
    f.project_id.is_none_or(|p| r.project_id == p)
        && search.is_none_or(|s| {
            let name = r.project_name.to_lowercase();
            name.contains(&s.trim().to_lowercase())
        })
        && f.status.as_ref().is_none_or(|s| r.status == *s)
        && f.triggered_by.as_ref().is_none_or(|t| r.triggered_by == *t)
        && f.start_date.is_none_or(|d| r.created_at >= d)
        && f.end_date.is_none_or(|d| r.created_at <= d)
}

fn is(r: &ReviewListItem, status: ReviewStatus) -> bool {
    r.status == status
}

fn tally(items: &[&ReviewListItem], status: ReviewStatus) -> u64 {
    items.iter().filter(|r| is(r, status)).count() as u64
}

/// USD per UTC day of the reviews' priced calls over the last [`COST_DAYS`] days
/// before `now`, oldest first, as the PostgreSQL store groups them.
fn cost_by_day(rows: &[&ReviewRow], calls: &[AiCallRow], now: DateTime<Utc>) -> Vec<DayCost> {
    let first_day = now.date_naive() - Days::new(u64::from(COST_DAYS - 1));
    let mut days: BTreeMap<NaiveDate, f64> = BTreeMap::new();
    let listed =
        |id: Option<ReviewId>| id.is_some_and(|id| rows.iter().any(|r| r.detail.item.id == id));
    for call in calls.iter().filter(|c| listed(c.review_id)) {
        let date = call.call.created_at.date_naive();
        if let Some(cost) = call.call.cost_usd.filter(|_| date >= first_day) {
            *days.entry(date).or_default() += cost;
        }
    }
    days.into_iter()
        .map(|(date, cost_usd)| DayCost { date, cost_usd })
        .collect()
}

fn stats(rows: &[&ReviewRow], calls: &[AiCallRow], now: DateTime<Utc>) -> ReviewStats {
    let items: Vec<&ReviewListItem> = rows.iter().map(|r| &r.detail.item).collect();
    let scores: Vec<f64> = rows
        .iter()
        .filter_map(|r| r.detail.score)
        .map(f64::from)
        .collect();
    #[expect(
        clippy::cast_precision_loss,
        reason = "a test store holds far fewer than 2^52 scores"
    )]
    let average = (!scores.is_empty()).then(|| scores.iter().sum::<f64>() / scores.len() as f64);
    ReviewStats {
        total: items.len() as u64,
        pending: tally(&items, ReviewStatus::Pending),
        completed: tally(&items, ReviewStatus::Completed),
        failed: tally(&items, ReviewStatus::Failed),
        total_comments: items
            .iter()
            .map(|r| u64::try_from(r.comment_count).unwrap_or(0))
            .sum(),
        average_score: average.map(|a| (a * 10.0).round() / 10.0),
        total_cost_usd: rows
            .iter()
            .filter_map(|r| review_cost(calls, r.detail.item.id))
            .sum(),
        cost_by_day: cost_by_day(rows, calls, now),
    }
}

fn days(items: &[&ReviewListItem]) -> Vec<DayCount> {
    let mut days: BTreeMap<NaiveDate, DayCount> = BTreeMap::new();
    for r in items {
        let day = r.created_at.date_naive();
        let count = days.entry(day).or_insert(DayCount {
            day,
            total: 0,
            completed: 0,
            failed: 0,
        });
        count.total += 1;
        count.completed += u64::from(is(r, ReviewStatus::Completed));
        count.failed += u64::from(is(r, ReviewStatus::Failed));
    }
    days.into_values().collect()
}

fn ratings(items: &[&ReviewListItem]) -> Vec<(String, u64)> {
    let mut ratings: BTreeMap<String, u64> = BTreeMap::new();
    for r in items.iter().filter(|r| is(r, ReviewStatus::Completed)) {
        if let Some(rating) = &r.overall_rating {
            *ratings.entry(rating.as_str().to_owned()).or_default() += 1;
        }
    }
    ratings.into_iter().collect()
}

fn failure(r: &ReviewRow) -> FailedReview {
    let item = &r.detail.item;
    FailedReview {
        id: item.id,
        project_name: item.project_name.clone(),
        mr_iid: item.mr_iid,
        mr_title: item.mr_title.clone(),
        error_message: r.detail.error_message.clone(),
        created_at: item.created_at,
    }
}

/// `limit` rows after `offset`, as SQL's LIMIT/OFFSET take them.
fn window<T>(all: Vec<T>, limit: u32, offset: u64) -> Vec<T> {
    let skip = usize::try_from(offset).unwrap_or(usize::MAX);
    all.into_iter().skip(skip).take(limit as usize).collect()
}

#[async_trait]
impl ReviewQueries for MemoryStore {
    async fn list(
        &self,
        filter: &ReviewFilter,
        page: PageRequest,
    ) -> Result<(Page<ReviewListItem>, ReviewStats), RepoError> {
        let now = self.now();
        let t = self.tables();
        let mut rows: Vec<&ReviewRow> = t
            .reviews
            .iter()
            .filter(|r| matches(filter, &r.detail.item))
            .collect();
        rows.sort_by_key(|r| std::cmp::Reverse((r.detail.item.created_at, r.detail.item.id)));
        let stats = stats(&rows, &t.ai_calls, now);
        let items = rows.into_iter().map(|r| r.detail.item.clone()).collect();
        Ok((Page::from_all(items, page), stats))
    }

    async fn activity(
        &self,
        since: DateTime<Utc>,
        failures: u32,
    ) -> Result<ReviewActivity, RepoError> {
        let t = self.tables();
        let recent: Vec<&ReviewListItem> = t
            .reviews
            .iter()
            .map(|r| &r.detail.item)
            .filter(|r| r.created_at >= since)
            .collect();
        // As the real adapter does, the failures are the newest of all time, not
        // only of the window.
        let mut failed: Vec<&ReviewRow> = t
            .reviews
            .iter()
            .filter(|r| is(&r.detail.item, ReviewStatus::Failed))
            .collect();
        failed.sort_by_key(|r| std::cmp::Reverse(r.detail.item.created_at));
        Ok(ReviewActivity {
            days: days(&recent),
            ratings: ratings(&recent),
            recent_failures: window(failed, failures, 0)
                .into_iter()
                .map(failure)
                .collect(),
        })
    }

    async fn detail(&self, id: ReviewId) -> Result<ReviewDetail, RepoError> {
        let t = self.tables();
        let mut detail = t.review(id)?.detail.clone();
        detail.cost_usd = review_cost(&t.ai_calls, id);
        for call in t.ai_calls.iter().filter(|c| c.review_id == Some(id)) {
            detail.tokens.prompt += i64::from(call.call.prompt_tokens);
            detail.tokens.completion += i64::from(call.call.completion_tokens);
            detail.tokens.total += i64::from(call.call.total_tokens);
            detail.tokens.cached += i64::from(call.call.cached_tokens);
        }
        Ok(detail)
    }

    async fn comments(
        &self,
        id: ReviewId,
        file_path: Option<&str>,
        severity: Option<&str>,
        limit: u32,
        offset: u64,
    ) -> Result<(Vec<CommentItem>, u64), RepoError> {
        let t = self.tables();
        let mut all: Vec<CommentItem> = t
            .comments
            .iter()
            .map(|c| &c.comment)
            .filter(|c| c.review_id == id)
            .filter(|c| file_path.is_none_or(|p| c.file_path == p))
            .filter(|c| severity.is_none_or(|s| c.severity.as_str() == s))
            .cloned()
            .collect();
        all.sort_by(|a, b| {
            (&a.file_path, a.line_number, a.created_at).cmp(&(
                &b.file_path,
                b.line_number,
                b.created_at,
            ))
        });
        let total = all.len() as u64;
        Ok((window(all, limit, offset), total))
    }

    async fn files(&self, id: ReviewId) -> Result<Vec<FileItem>, RepoError> {
        let t = self.tables();
        let Some(latest) = t
            .rounds
            .iter()
            .filter(|r| r.review_id == id)
            .max_by_key(|r| r.round.round_number)
        else {
            return Ok(Vec::new());
        };
        let mut files: Vec<FileItem> = t
            .files
            .iter()
            .filter(|f| f.round_id == latest.round.id)
            .map(|f| f.file.clone())
            .collect();
        files.sort_by(|a, b| a.file_path.cmp(&b.file_path));
        Ok(files)
    }

    async fn rounds(&self, id: ReviewId) -> Result<Vec<RoundItem>, RepoError> {
        let t = self.tables();
        let mut rounds: Vec<RoundItem> = t
            .rounds
            .iter()
            .filter(|r| r.review_id == id)
            .map(|r| r.round.clone())
            .collect();
        rounds.sort_by_key(|r| r.round_number);
        Ok(rounds)
    }

    async fn feedbacks(&self, id: ReviewId) -> Result<Vec<FeedbackItem>, RepoError> {
        let t = self.tables();
        let mut all: Vec<FeedbackItem> = t
            .feedbacks
            .iter()
            .filter(|f| f.review_id == id)
            .map(|f| f.feedback.clone())
            .collect();
        all.sort_by_key(|f| std::cmp::Reverse(f.created_at));
        Ok(all)
    }

    async fn ai_logs(
        &self,
        id: ReviewId,
        provider: Option<&str>,
        status: Option<AiCallStatus>,
        limit: u32,
        offset: u64,
    ) -> Result<(Vec<AiLogItem>, u64), RepoError> {
        let t = self.tables();
        let mut all: Vec<AiLogItem> = t
            .ai_calls
            .iter()
            .filter(|c| c.review_id == Some(id))
            .map(|c| &c.call)
            .filter(|c| provider.is_none_or(|p| c.provider == p))
            .filter(|c| status.is_none_or(|s| c.status == s))
            .cloned()
            .collect();
        all.sort_by_key(|c| std::cmp::Reverse((c.created_at, c.id)));
        let total = all.len() as u64;
        Ok((window(all, limit, offset), total))
    }

    async fn task_logs(&self, id: ReviewId) -> Result<Vec<TaskLogLine>, RepoError> {
        let t = self.tables();
        let mut lines: Vec<TaskLogLine> = t
            .task_logs
            .iter()
            .filter(|l| {
                t.tasks
                    .iter()
                    .any(|task| task.task.id == l.task_id && task.task.review_id == Some(id))
            })
            .cloned()
            .collect();
        lines.sort_by_key(|l| (l.created_at, l.line_no));
        Ok(lines)
    }

    async fn templates(&self) -> Result<Vec<TemplateItem>, RepoError> {
        let t = self.tables();
        let mut all: Vec<TemplateItem> =
            t.catalog.templates.iter().map(|r| r.item.clone()).collect();
        all.sort_by(|a, b| (!a.is_default, &a.name).cmp(&(!b.is_default, &b.name)));
        Ok(all)
    }

    async fn rules(&self) -> Result<Vec<RuleItem>, RepoError> {
        let t = self.tables();
        let mut all: Vec<RuleItem> = t.catalog.rules.iter().map(|r| r.item.clone()).collect();
        all.sort_by(by_priority);
        Ok(all)
    }

    async fn judged_rounds(
        &self,
        project_id: ProjectId,
        limit: u32,
    ) -> Result<Vec<JudgedRound>, RepoError> {
        let t = self.tables();
        let mut rounds: Vec<(DateTime<Utc>, JudgedRound)> = Vec::new();
        for row in &t.rounds {
            let Ok(review) = t.review(row.review_id) else {
                continue;
            };
            if review.detail.item.project_id != project_id {
                continue;
            }
            let mut comments: Vec<JudgedComment> = t
                .comments
                .iter()
                .filter(|c| c.round_id == row.round.id)
                .filter_map(|c| {
                    let latest = t
                        .feedbacks
                        .iter()
                        .filter(|f| f.comment_id == Some(c.comment.id))
                        .filter(|f| {
                            matches!(
                                f.feedback.tracking_status,
                                TrackingStatus::Accepted
                                    | TrackingStatus::Implemented
                                    | TrackingStatus::Rejected
                            )
                        })
                        .max_by_key(|f| f.feedback.created_at)?;
                    Some(JudgedComment {
                        file_path: c.comment.file_path.clone(),
                        line: c.comment.line_number,
                        severity: c.comment.severity,
                        message: c.comment.message.clone(),
                        verdict: latest.feedback.tracking_status,
                    })
                })
                .collect();
            if comments.is_empty() {
                continue;
            }
            comments.sort_by(|a, b| (&a.file_path, a.line).cmp(&(&b.file_path, b.line)));
            rounds.push((
                row.round.created_at,
                JudgedRound {
                    review_id: row.review_id,
                    mr_iid: review.detail.item.mr_iid,
                    mr_title: review.detail.item.mr_title.clone(),
                    base_sha: review.detail.base_commit_sha.clone(),
                    head_sha: row.round.head_sha.clone(),
                    round_number: row.round.round_number,
                    comments,
                },
            ));
        }
        rounds.sort_by_key(|r| std::cmp::Reverse(r.0));
        Ok(rounds
            .into_iter()
            .take(limit as usize)
            .map(|(_, r)| r)
            .collect())
    }
}
