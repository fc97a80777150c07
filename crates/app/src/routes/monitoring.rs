//! Monitoring: `GET /api/monitoring/overview`, `/system` and `/database` (paginated
//! history, newest first, `page`, `pageSize` default 20 max 100, `startDate`),
//! `/api` (request statistics since `startDate`, default the last 24 hours) and
//! `POST /api/monitoring/collect`.

use crate::envelope;
use crate::error::ApiError;
use crate::extract::{AuthUser, PageParams, date_from};
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use chrono::{TimeDelta, Utc};
use serde::Deserialize;
use utoipa_actix_web::service_config::ServiceConfig;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.route("/monitoring/overview", web::get().to(overview))
        .route("/monitoring/system", web::get().to(system))
        .route("/monitoring/database", web::get().to(database))
        .route("/monitoring/api", web::get().to(api))
        .route("/monitoring/collect", web::post().to(collect));
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HistoryQuery {
    start_date: Option<String>,
    #[serde(flatten)]
    page: PageParams,
}

async fn overview(state: web::Data<AppState>, _user: AuthUser) -> Result<HttpResponse, ApiError> {
    let overview = state.monitoring.overview().await?;
    Ok(envelope::ok(overview))
}

async fn system(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<HistoryQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = q.page.to_request(20, 100)?;
    let since = date_from("startDate", q.start_date.as_deref())?;
    let history = state.monitoring.system_history(page, since).await?;
    Ok(envelope::paginated(history, |s| s))
}

async fn database(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<HistoryQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = q.page.to_request(20, 100)?;
    let since = date_from("startDate", q.start_date.as_deref())?;
    let history = state.monitoring.database_history(page, since).await?;
    Ok(envelope::paginated(history, |s| s))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StatsQuery {
    start_date: Option<String>,
}

async fn api(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<StatsQuery>,
) -> Result<HttpResponse, ApiError> {
    let since = date_from("startDate", q.start_date.as_deref())?
        .unwrap_or_else(|| Utc::now() - TimeDelta::hours(24));
    let stats = state.monitoring.api_stats(since).await?;
    Ok(envelope::ok(stats))
}

async fn collect(state: web::Data<AppState>, _user: AuthUser) -> Result<HttpResponse, ApiError> {
    let collected = state.monitoring.collect().await?;
    Ok(envelope::ok(collected))
}
