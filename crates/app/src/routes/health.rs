//! `GET /api/health` (public liveness) and `GET /api/health/detailed` (dependencies).

use crate::envelope;
use crate::error::ApiError;
use crate::extract::{AuthUser, choice, date_from, date_until};
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use chrono::Utc;
use futures_util::future::join_all;
use reviewd_domain::ErrorCode;
use reviewd_domain::model::health::{CheckResult, CheckType, HealthHistoryFilter, HealthStatus};
use reviewd_domain::services::health::overall;
use serde_json::{Map, json};
use utoipa_actix_web::service_config::ServiceConfig;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.route("/health", web::get().to(health))
        .route("/health/detailed", web::get().to(health_detailed))
        .route("/health/check", web::get().to(health_check))
        .route("/health/status", web::get().to(health_status))
        .route("/health/history", web::get().to(health_history))
        .route("/health/database", web::get().to(health_database))
        .route("/health/hostA", web::get().to(health_host_a))
        .route("/health/ai-providers", web::get().to(health_ai_providers))
        .route("/health/disk-space", web::get().to(health_disk_space));
}

/// `{overall, checks, timestamp}` for a set of results.
fn report(checks: &[CheckResult]) -> HttpResponse {
    envelope::ok(json!({ "overall": overall(checks), "checks": checks, "timestamp": Utc::now() }))
}

async fn health_check(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(report(&state.health.check_all().await?))
}

async fn health_status(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(report(&state.health.latest().await?))
}

async fn health_database(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let checks = state.health.database().await?;
    Ok(envelope::ok(
        json!({ "check": checks.first(), "overall": overall(&checks), "checks": checks }),
    ))
}

async fn health_host_a(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(report(&state.health.host_a().await?))
}

async fn health_ai_providers(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(report(&state.health.ai_providers().await?))
}

async fn health_disk_space(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(report(&state.health.disk_space().await?))
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct HistoryQuery {
    check_type: Option<String>,
    status: Option<String>,
    start_date: Option<String>,
    end_date: Option<String>,
    limit: Option<String>,
}

fn invalid(message: &str) -> ApiError {
    ApiError::bad_request(ErrorCode::InvalidQuery, message)
}

async fn health_history(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<HistoryQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = HealthHistoryFilter {
        check_type: choice(
            "checkType",
            q.check_type.as_deref(),
            &["database", "hostA", "ai_provider", "disk_space"],
            CheckType::parse,
        )?,
        status: choice(
            "status",
            q.status.as_deref(),
            &["healthy", "degraded", "unhealthy"],
            HealthStatus::parse,
        )?,
        start_date: date_from("startDate", q.start_date.as_deref())?,
        end_date: date_until("endDate", q.end_date.as_deref())?,
        limit: match q.limit.as_deref() {
            None => 100,
            Some(v) => v
                .parse::<u32>()
                .ok()
                .filter(|n| *n >= 1)
                .map(|n| n.min(1000))
                .ok_or_else(|| invalid("limit must be a positive whole number"))?,
        },
    };
    Ok(envelope::ok(
        json!({ "checks": state.health.history(&filter).await? }),
    ))
}

/// Liveness: answers `ok` whenever the process serves HTTP.
async fn health(state: web::Data<AppState>) -> HttpResponse {
    envelope::ok(json!({
        "status": "ok",
        "timestamp": Utc::now(),
        "environment": {
            "appEnv": state.config.app_env,
            "nodeEnv": state.config.node_env.as_str(),
        },
    }))
}

/// `ok` when every dependency answers, `degraded` otherwise, with each one's result.
async fn health_detailed(state: web::Data<AppState>, _user: AuthUser) -> HttpResponse {
    let results = join_all(
        state
            .probes
            .iter()
            .map(|p| async move { (p.name(), p.ping().await) }),
    )
    .await;
    let mut checks = Map::new();
    let mut all_ok = true;
    for (name, result) in results {
        let check = match result {
            Ok(took) => json!({ "status": "healthy", "responseTime": took.as_secs_f64() * 1000.0 }),
            Err(err) => {
                all_ok = false;
                tracing::warn!(check = name, error = %err, "health.dependency_down");
                json!({ "status": "unhealthy", "error": "not reachable" })
            }
        };
        checks.insert(name.to_owned(), check);
    }
    envelope::ok(json!({
        "status": if all_ok { "ok" } else { "degraded" },
        "uptime": state.started_at.elapsed().as_secs(),
        "timestamp": Utc::now(),
        "version": env!("CARGO_PKG_VERSION"),
        "checks": checks,
    }))
}
