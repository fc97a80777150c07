//! `/`: how reviews are going, at a glance.

use crate::charts::{self, Bar};
use crate::page_error::PageError;
use crate::render::{self, Chrome};
use crate::session::{Viewer, state};
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use reviewd_domain::PageRequest;
use reviewd_domain::model::review_views::{FailedReview, ReviewFilter, ReviewStats};
use reviewd_domain::model::runner::RunnerStatus;
use reviewd_domain::services::health::overall;

crate::render::pages!(OverviewPage);
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(overview));
}

/// Days shown in the reviews-per-day chart.
const CHART_DAYS: u32 = 14;

#[derive(Template)]
#[template(path = "overview.html")]
struct OverviewPage {
    chrome: Chrome,
    no_platform: bool,
    today: ReviewStats,
    week: ReviewStats,
    queue_depth: Option<u64>,
    runners_online: usize,
    runners_total: usize,
    health: String,
    per_day_chart: String,
    rating_chart: String,
    failures: Vec<FailedReview>,
}

async fn stats_since(
    state: &reviewd_api::state::AppState,
    days_back: u64,
) -> Result<ReviewStats, PageError> {
    let start = (chrono::Utc::now().date_naive() - chrono::Days::new(days_back))
        .and_time(chrono::NaiveTime::MIN)
        .and_utc();
    let filter = ReviewFilter {
        start_date: Some(start),
        ..ReviewFilter::default()
    };
    Ok(state
        .history
        .list(&filter, PageRequest::new(1, 1, 1))
        .await?
        .1)
}

async fn overview(req: HttpRequest, viewer: Viewer) -> Result<HttpResponse, PageError> {
    let state = state(&req)?;
    let no_platform = state.platform_configs.list(None, false).await?.is_empty();
    let today = stats_since(&state, 0).await?;
    let week = stats_since(&state, 6).await?;
    // The queue being down is shown as unknown, not as a broken page.
    let queue_depth = state.tasks.queue_depth().await.ok();
    let runners = state.runners.list().await?;
    let runners_online = runners
        .iter()
        .filter(|r| r.status != RunnerStatus::Offline)
        .count();
    let health = match state.health.latest().await {
        Ok(results) if results.is_empty() => "not checked yet".to_owned(),
        Ok(results) => overall(&results).as_str().to_owned(),
        Err(_) => "unknown".to_owned(),
    };
    let activity = state.history.activity(CHART_DAYS, 5).await?;
    let first = chrono::Utc::now().date_naive() - chrono::Days::new(u64::from(CHART_DAYS - 1));
    let per_day: Vec<Bar> = first
        .iter_days()
        .take(CHART_DAYS as usize)
        .map(|day| {
            let n = activity
                .days
                .iter()
                .find(|d| d.day == day)
                .map_or(0, |d| d.total);
            #[expect(clippy::cast_precision_loss, reason = "counts of a day")]
            let value = n as f64;
            Bar {
                label: day.format("%d %b").to_string(),
                value,
            }
        })
        .collect();
    let ratings: Vec<Bar> = ["A", "B", "C", "D", "F"]
        .iter()
        .map(|letter| {
            let n = activity
                .ratings
                .iter()
                .find(|(r, _)| r == letter)
                .map_or(0, |(_, n)| *n);
            #[expect(clippy::cast_precision_loss, reason = "counts")]
            let value = n as f64;
            Bar {
                label: (*letter).to_owned(),
                value,
            }
        })
        .collect();
    render::page(&OverviewPage {
        chrome: Chrome::new(&viewer, "overview", "Overview"),
        no_platform,
        today,
        week,
        queue_depth,
        runners_online,
        runners_total: runners.len(),
        health,
        per_day_chart: charts::bars("Reviews per day, last 14 days", &per_day),
        rating_chart: charts::bars("Ratings of completed reviews, last 14 days", &ratings),
        failures: activity.recent_failures,
    })
}
