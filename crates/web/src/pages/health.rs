//! `/health`: the dependency checks with their history, host and database samples,
//! and the API's request statistics.

use crate::charts;
use crate::form::{NoFields, PageForm};
use crate::page_error::PageError;
use crate::render::{self, Chrome};
use crate::session::{Viewer, state};
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use reviewd_domain::PageRequest;
use reviewd_domain::model::health::{CheckResult, HealthHistoryFilter};
use reviewd_domain::model::monitoring::ApiStats;
use reviewd_domain::services::health::overall;

crate::render::pages!(HealthPage);
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/health", web::get().to(show))
        .route("/health/check", web::post().to(check_now));
}

/// Samples drawn in each chart (the newest).
const SAMPLES: u32 = 120;

#[derive(Template)]
#[template(path = "health.html")]
struct HealthPage {
    chrome: Chrome,
    overall: String,
    checks: Vec<CheckResult>,
    history: Vec<CheckResult>,
    cpu_chart: String,
    memory_chart: String,
    db_chart: String,
    api: ApiStats,
}

async fn show(req: HttpRequest, viewer: Viewer) -> Result<HttpResponse, PageError> {
    let state = state(&req)?;
    let checks = state.health.latest().await?;
    let history = state
        .health
        .history(&HealthHistoryFilter {
            limit: 30,
            ..HealthHistoryFilter::default()
        })
        .await?;
    let mut system = state
        .monitoring
        .system_history(PageRequest::new(1, SAMPLES, SAMPLES), None)
        .await?
        .items;
    system.reverse();
    let mut database = state
        .monitoring
        .database_history(PageRequest::new(1, SAMPLES, SAMPLES), None)
        .await?
        .items;
    database.reverse();
    #[expect(clippy::cast_precision_loss, reason = "bytes shown as a share")]
    let memory: Vec<f64> = system
        .iter()
        .map(|s| {
            if s.memory_total_bytes == 0 {
                0.0
            } else {
                s.memory_used_bytes as f64 * 100.0 / s.memory_total_bytes as f64
            }
        })
        .collect();
    let cpu: Vec<f64> = system.iter().map(|s| s.cpu_usage_percent).collect();
    let latency: Vec<f64> = database.iter().map(|d| d.query_latency_ms).collect();
    let since = chrono::Utc::now() - chrono::Duration::hours(24);
    render::page(&HealthPage {
        chrome: Chrome::new(&viewer, "health", "Health and monitoring"),
        overall: if checks.is_empty() {
            "not checked yet".to_owned()
        } else {
            overall(&checks).as_str().to_owned()
        },
        checks,
        history,
        cpu_chart: charts::line("CPU use, %", &cpu, Some(100.0)),
        memory_chart: charts::line("Memory use, %", &memory, Some(100.0)),
        db_chart: charts::line("Database round trip, ms", &latency, None),
        api: state.monitoring.api_stats(since).await?,
    })
}

async fn check_now(
    req: HttpRequest,
    _viewer: Viewer,
    _form: PageForm<NoFields>,
) -> Result<HttpResponse, PageError> {
    let results = state(&req)?.health.check_all().await?;
    Ok(render::redirect_with(
        "/health",
        &format!(
            "{} check(s) run: {}.",
            results.len(),
            overall(&results).as_str()
        ),
    ))
}
