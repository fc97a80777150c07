//! What AI calls cost, as the stores add it up: per review (its detail), over the
//! review list's filter (in all and per day of the last month), per project this
//! month, and by provider and model for the metrics. A call without a price adds
//! nothing, and a review with none has no cost.

use super::{Stores, seed};
use crate::fakes::FakeClock;
use async_trait::async_trait;
use chrono::{Days, NaiveDate, TimeDelta, Utc};
use reviewd_domain::PageRequest;
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::review::{AiCallRecord, ReviewStatus};
use reviewd_domain::model::review_views::{DayCost, ReviewFilter, ReviewStats};
use std::time::Duration;

pub async fn run(s: &Stores) {
    costs_add_up_per_review_list_project_and_model(s).await;
}

/// Makes days pass for what a store has logged, which the ports cannot: the
/// per-day case needs calls of other days than today.
#[async_trait]
pub trait Calendar: Sync {
    /// Makes every review and AI call logged so far `days` days older, as if that
    /// many days had passed since: the clock moved for a fake store, the rows'
    /// timestamps moved back in a real one.
    async fn days_pass(&self, days: u32);
}

#[async_trait]
impl Calendar for FakeClock {
    async fn days_pass(&self, days: u32) {
        self.advance(Duration::from_secs(u64::from(days) * 24 * 3600));
    }
}

/// The list's `cost_by_day`: the spending of the filtered reviews per UTC day of
/// their calls, the last 30 days only (today included), oldest first, days without
/// a priced call left out.
pub async fn by_day(s: &Stores, calendar: &dyn Calendar) {
    let (mine, theirs) = (seed::project(s).await, seed::project(s).await);
    let a = seed::review(s, &mine, 81, "h1").await;
    let b = seed::review(s, &theirs, 82, "h1").await;
    let log = |calls: Vec<AiCallRecord>| async move {
        for c in calls {
            s.reviews.log_ai_call(c).await.unwrap();
        }
    };
    // Binary fractions, so that sums compare exactly.
    log(vec![seed::ai_call(Some(a.id), "m-1", Some(0.125))]).await; // 30 days old: left out
    calendar.days_pass(1).await;
    log(vec![seed::ai_call(Some(a.id), "m-1", Some(0.25))]).await; // 29 days old: the oldest day shown
    calendar.days_pass(27).await;
    log(vec![
        seed::ai_call(Some(a.id), "m-1", Some(0.5)),
        seed::ai_call(Some(b.id), "m-1", Some(1.0)),
        seed::ai_call(Some(a.id), "m-1", None),
    ])
    .await;
    calendar.days_pass(1).await;
    log(vec![seed::ai_call(Some(b.id), "m-1", None)]).await; // yesterday: unpriced only
    calendar.days_pass(1).await;
    log(vec![
        seed::ai_call(Some(a.id), "m-1", Some(0.25)),
        seed::ai_call(Some(a.id), "m-2", Some(0.125)),
        seed::ai_call(Some(b.id), "m-1", Some(2.0)),
    ])
    .await;

    // Today as the store dates its calls (the real store's clock is not ours).
    let (newest, _) = s
        .review_queries
        .ai_logs(a.id, None, None, 1, 0)
        .await
        .unwrap();
    let today = newest[0].created_at.date_naive();
    let ago = |days| today - Days::new(days);
    let day = |date: NaiveDate, cost_usd| DayCost { date, cost_usd };
    let stats = |filter: ReviewFilter| async move {
        let (_, stats) = s
            .review_queries
            .list(&filter, PageRequest::new(1, 10, 10))
            .await
            .unwrap();
        stats
    };

    let all = stats(ReviewFilter::default()).await;
    assert_eq!(
        all.cost_by_day,
        [day(ago(29), 0.25), day(ago(2), 1.5), day(today, 2.375)],
        "days summed over the reviews, oldest first, empty and unpriced days left out"
    );
    assert_eq!(all.total_cost_usd, 4.25, "the total has no window");
    let of = |project: ProjectId| ReviewFilter {
        project_id: Some(project),
        ..ReviewFilter::default()
    };
    assert_eq!(
        stats(of(mine.id)).await.cost_by_day,
        [day(ago(29), 0.25), day(ago(2), 0.5), day(today, 0.375)]
    );
    assert_eq!(
        stats(of(theirs.id)).await.cost_by_day,
        [day(ago(2), 1.0), day(today, 2.0)],
        "the filter applies"
    );
    let failed = ReviewFilter {
        status: Some(ReviewStatus::Failed),
        ..ReviewFilter::default()
    };
    assert_eq!(
        stats(failed).await,
        ReviewStats::default(),
        "nothing matched"
    );
}

async fn costs_add_up_per_review_list_project_and_model(s: &Stores) {
    let project = seed::project(s).await;
    let priced = seed::review(s, &project, 71, "h1").await;
    let unpriced = seed::review(s, &project, 72, "h1").await;
    // Binary fractions, so that sums compare exactly.
    for c in [
        seed::ai_call(Some(priced.id), "m-1", Some(0.25)),
        seed::ai_call(Some(priced.id), "m-2", Some(0.5)),
        seed::ai_call(Some(unpriced.id), "m-1", None),
        // A call whose review is gone counts in the totals, not in a project's.
        seed::ai_call(None, "m-1", Some(0.125)),
    ] {
        s.reviews.log_ai_call(c).await.unwrap();
    }

    let detail = |id| async move { s.review_queries.detail(id).await.unwrap().cost_usd };
    assert_eq!(detail(priced.id).await, Some(0.75));
    assert_eq!(detail(unpriced.id).await, None, "unknown, not 0");

    let list = |filter: ReviewFilter| async move {
        let (_, stats) = s
            .review_queries
            .list(&filter, PageRequest::new(1, 10, 10))
            .await
            .unwrap();
        (stats.total_cost_usd, stats.cost_by_day)
    };
    let (calls, _) = s
        .review_queries
        .ai_logs(priced.id, None, None, 1, 0)
        .await
        .unwrap();
    let today = DayCost {
        date: calls[0].created_at.date_naive(),
        cost_usd: 0.75,
    };
    assert_eq!(list(ReviewFilter::default()).await, (0.75, vec![today]));
    let failed = ReviewFilter {
        status: Some(ReviewStatus::Failed),
        ..ReviewFilter::default()
    };
    assert_eq!(list(failed).await, (0.0, vec![]), "the filter applies");

    let stats = s.projects.stats().await.unwrap();
    assert_eq!(
        (stats.cost_usd_total, stats.cost_usd_this_month),
        (0.875, 0.875)
    );
    assert_eq!(stats.cost_by_project.len(), 1);
    assert_eq!(
        (
            stats.cost_by_project[0].project_id,
            stats.cost_by_project[0].cost_usd
        ),
        (project.id, 0.75)
    );

    let offline_before = Utc::now() - TimeDelta::minutes(1);
    let counts = s.monitoring.state_counts(offline_before).await.unwrap();
    assert_eq!(
        counts.ai_costs,
        vec![
            ("Priced".to_owned(), "m-1".to_owned(), 0.375),
            ("Priced".to_owned(), "m-2".to_owned(), 0.5),
        ]
    );
}
